from twiceshy.ops.cli import main

main()
