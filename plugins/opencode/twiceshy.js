// twiceshy for OpenCode: hands OpenCode's plugin hooks to twiceshy's stdlib hook
// client (one process per event) and fails open — an error, a timeout or an answer
// it cannot read means "carry on". Checked against opencode-ai 1.18.33.
//
// `twiceshy install --agent opencode` lists this file in opencode.json's "plugin"
// array with options {"home": <data dir>, "hooks": {<Event>: {"command", "timeout"}}};
// the event names and the answer format are documented in
// twiceshy/plugins/opencode/adapter.py. Node built-ins only: OpenCode's own
// dependency install may not have run (offline).

import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

const MAX_REPLY = 4 * 1024 * 1024
const MAX_TRACKED = 2048 // per-call bookkeeping kept at most (oldest dropped)
const BLOCKED_BY = "twiceshy" // appears in every reason the engine writes; used only as a fallback

// Map.set / Set.add, keeping at most MAX_TRACKED entries (the oldest go first).
function remember(store, key, value) {
  if (store instanceof Set) store.add(key)
  else store.set(key, value)
  if (store.size > MAX_TRACKED) store.delete(store.keys().next().value)
}

// OpenCode's database: OPENCODE_DB (absolute, or relative to the data dir), else
// $XDG_DATA_HOME/opencode/opencode.db (~/.local/share/opencode/opencode.db).
function databasePath() {
  try {
    const dataHome = process.env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share")
    const dataDir = path.join(dataHome, "opencode")
    const override = process.env.OPENCODE_DB
    if (override) return override === ":memory:" ? "" : path.isAbsolute(override) ? override : path.join(dataDir, override)
    return path.join(dataDir, "opencode.db")
  } catch {
    return ""
  }
}

// twiceshy's data dir when the options name none (a project's committed opencode.json, whose hook
// commands are `twiceshy hook opencode <Event>`): TWICESHY_HOME, else the default `twiceshy` uses.
function defaultHome() {
  try {
    if (process.env.TWICESHY_HOME) return process.env.TWICESHY_HOME
    if (process.platform === "darwin") return path.join(os.homedir(), "Library", "Application Support", "twiceshy")
    const base = (process.env.XDG_DATA_HOME || "").trim() ? process.env.XDG_DATA_HOME : path.join(os.homedir(), ".local", "share")
    return path.join(base, "twiceshy")
  } catch {
    return ""
  }
}

export const TwiceshyPlugin = async (input, options) => {
  const opts = options && typeof options === "object" ? options : {}
  const hooks = opts.hooks && typeof opts.hooks === "object" ? opts.hooks : {}
  const home = typeof opts.home === "string" && opts.home ? opts.home : defaultHome()
  const directory = (input && typeof input.directory === "string" && input.directory) || process.cwd()

  const started = new Map() // sessionID -> Promise<session-start context>
  const sessions = new Set() // sessions seen (SessionEnd at dispose)
  const ended = new Set()
  const pending = new Map() // callID -> warning to add to that call's result
  const notes = new Map() // sessionID -> [text] for the next system prompt (warnings of failed calls)
  const denied = new Set() // callIDs we blocked: their "error" part is our deny, not a failure
  const failed = new Set() // callIDs already reported as failed

  // One run of the hook client: resolves to {code, out, err}, or null on any trouble.
  function run(command, stdin, timeoutMs) {
    return new Promise((resolve) => {
      let done = false
      let out = ""
      let err = ""
      let child
      const finish = (value) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve(value)
      }
      const timer = setTimeout(() => {
        try {
          child && child.kill("SIGKILL")
        } catch {}
        finish(null)
      }, timeoutMs)
      try {
        child = spawn(command, { shell: true, cwd: directory, stdio: ["pipe", "pipe", "pipe"], windowsHide: true })
      } catch {
        return finish(null)
      }
      child.on("error", () => finish(null))
      child.stdout.on("data", (chunk) => {
        out += chunk
        if (out.length > MAX_REPLY) finish(null)
      })
      child.stderr.on("data", (chunk) => {
        if (err.length < MAX_REPLY) err += chunk
      })
      child.on("close", (code) => finish({ code, out, err }))
      child.stdin.on("error", () => {})
      child.stdin.end(stdin)
    })
  }

  // The engine's answer for one event: {decision, reason, context} or null.
  async function call(event, payload) {
    try {
      const hook = hooks[event]
      if (!hook || typeof hook.command !== "string") return null
      const seconds = Number(hook.timeout) > 0 ? Number(hook.timeout) : 10
      const body = JSON.stringify({ hook_event_name: event, cwd: directory, ...payload })
      const result = await run(hook.command, body, seconds * 1000)
      if (!result) return null
      // Exit 2 with a reason on stderr: the client could not reach the engine and a
      // confirmed rule (its snapshot) blocks this call.
      if (result.code === 2 && event === "PreToolUse" && result.err.trim())
        return { decision: "deny", reason: result.err.trim() }
      if (result.code !== 0 || !result.out.trim()) return null
      const answer = JSON.parse(result.out)
      return answer && typeof answer === "object" ? answer : null
    } catch {
      return null
    }
  }

  function text(value) {
    return typeof value === "string" && value.trim() ? value : ""
  }

  // A pointer to the session in OpenCode's database, for twiceshy's transcript reader.
  function transcriptPath(sessionID) {
    try {
      const db = databasePath()
      if (!home || !db || !/^[A-Za-z0-9_.-]+$/.test(sessionID)) return undefined
      const dir = path.join(home, "opencode-sessions")
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      const file = path.join(dir, `${sessionID}.json`)
      const body = JSON.stringify({ opencode_db: db, session_id: sessionID, directory }) + "\n"
      const tmp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, body, { mode: 0o600 })
      fs.renameSync(tmp, file)
      return file
    } catch {
      return undefined
    }
  }

  // The pointer once per session, for the events before its end: a session killed before
  // session.idle / dispose is still learned later from OpenCode's store (twiceshy's sweep).
  const pointers = new Map() // sessionID -> pointer path
  function pointer(sessionID) {
    if (!sessionID) return undefined
    if (!pointers.has(sessionID)) {
      const file = transcriptPath(sessionID)
      if (!file) return undefined
      remember(pointers, sessionID, file)
    }
    return pointers.get(sessionID)
  }

  function sessionStart(sessionID, source) {
    if (!sessionID) return Promise.resolve("")
    if (!started.has(sessionID)) {
      sessions.add(sessionID)
      started.set(
        sessionID,
        call("SessionStart", { session_id: sessionID, source }).then((a) => (a ? text(a.context) : "")),
      )
    }
    return started.get(sessionID)
  }

  async function sessionEnd(sessionID, reason) {
    if (!sessionID || ended.has(sessionID)) return
    ended.add(sessionID)
    await call("SessionEnd", { session_id: sessionID, reason, transcript_path: transcriptPath(sessionID) })
  }

  function note(sessionID, value) {
    if (!sessionID || !value) return
    const list = notes.get(sessionID) || []
    list.push(value)
    remember(notes, sessionID, list)
  }

  return {
    event: async ({ event }) => {
      try {
        const props = (event && event.properties) || {}
        if (event.type === "session.created") {
          await sessionStart(props.sessionID || (props.info && props.info.id), "startup")
        } else if (event.type === "session.idle") {
          if (props.sessionID)
            await call("Stop", { session_id: props.sessionID, transcript_path: transcriptPath(props.sessionID) })
        } else if (event.type === "session.deleted") {
          await sessionEnd(props.sessionID || (props.info && props.info.id), "deleted")
        } else if (event.type === "message.part.updated") {
          // A failed tool call fires no tool.execute.after: its part turns to "error".
          const part = props.part || {}
          const state = part.state || {}
          if (part.type !== "tool" || state.status !== "error" || !part.callID) return
          if (denied.has(part.callID) || failed.has(part.callID)) return
          remember(failed, part.callID)
          const warned = pending.get(part.callID)
          pending.delete(part.callID)
          const answer = await call("PostToolUseFailure", {
            session_id: part.sessionID || props.sessionID,
            tool_name: part.tool,
            tool_input: state.input || {},
            call_id: part.callID,
            error: typeof state.error === "string" ? state.error : "",
          })
          note(part.sessionID || props.sessionID, [text(warned), answer && text(answer.context)].filter(Boolean).join("\n\n"))
        }
      } catch {}
    },

    "chat.message": async (input, output) => {
      try {
        await sessionStart(input.sessionID, "startup")
        const prompt = (output.parts || [])
          .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
          .map((p) => p.text)
          .join("\n")
        const answer = await call("UserPromptSubmit", {
          session_id: input.sessionID,
          prompt,
          transcript_path: pointer(input.sessionID),
        })
        const context = answer && text(answer.context)
        if (context && output.message) {
          output.parts.push({
            id: `prt_twiceshy${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
            sessionID: output.message.sessionID || input.sessionID,
            messageID: output.message.id,
            type: "text",
            text: context,
            synthetic: true,
          })
        }
      } catch {}
    },

    "experimental.chat.system.transform": async (input, output) => {
      try {
        if (!input.sessionID || !Array.isArray(output.system)) return
        const context = await sessionStart(input.sessionID, "startup")
        if (context) output.system.push(context)
        const queued = notes.get(input.sessionID)
        if (queued && queued.length) {
          notes.delete(input.sessionID)
          output.system.push(queued.join("\n\n"))
        }
      } catch {}
    },

    "tool.execute.before": async (input, output) => {
      let answer = null
      try {
        answer = await call("PreToolUse", {
          session_id: input.sessionID,
          tool_name: input.tool,
          tool_input: output.args || {},
          call_id: input.callID,
          transcript_path: pointer(input.sessionID),
        })
      } catch {
        answer = null
      }
      if (!answer) return
      const context = text(answer.context)
      if (answer.decision === "deny") {
        remember(denied, input.callID)
        // Thrown on purpose: OpenCode does not run the tool and the model reads this as its error.
        throw new Error(text(answer.reason) || `Blocked by ${BLOCKED_BY}.`)
      }
      if (context) remember(pending, input.callID, context)
    },

    "tool.execute.after": async (input, output) => {
      try {
        const warned = pending.get(input.callID)
        pending.delete(input.callID)
        const meta = output.metadata && typeof output.metadata === "object" ? output.metadata : {}
        const answer = await call("PostToolUse", {
          session_id: input.sessionID,
          tool_name: input.tool,
          tool_input: input.args || {},
          call_id: input.callID,
          tool_output: typeof output.output === "string" ? output.output : "",
          exit_code: Number.isInteger(meta.exit) ? meta.exit : undefined,
          title: output.title,
        })
        const extra = [text(warned), answer && text(answer.context)].filter(Boolean).join("\n\n")
        if (extra) output.output = `${typeof output.output === "string" ? output.output : ""}\n\n${extra}`
      } catch {}
    },

    dispose: async () => {
      try {
        for (const sessionID of sessions) await sessionEnd(sessionID, "exit")
      } catch {}
    },
  }
}
