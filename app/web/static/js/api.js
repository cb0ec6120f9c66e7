// The API client: fetch with the session's API key, refusals turned into errors that name the
// field, and the run event stream with resume (Last-Event-ID) after any drop.

const KEY = "edesk.apiKey";

export function apiKey() {
  return sessionStorage.getItem(KEY) || "";
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

let askForKey = null;

/** Register the prompt shown when the server asks for a key: async (message) => boolean. */
export function onKeyNeeded(fn) {
  askForKey = fn;
}

export class ApiError extends Error {
  constructor(status, message, fields = []) {
    super(message);
    this.status = status;
    this.fields = fields; // [{field: "transcript", msg: "..."}]
  }

  static async from(resp) {
    let detail = null;
    try {
      detail = (await resp.json()).detail;
    } catch {
      detail = null;
    }
    if (Array.isArray(detail)) {
      const fields = detail.map((d) => ({
        field: (d.loc || []).filter((p) => p !== "body").join("."),
        msg: d.msg || String(d),
      }));
      const text = fields.map((f) => (f.field ? `${f.field}: ${f.msg}` : f.msg)).join("; ");
      return new ApiError(resp.status, text || `HTTP ${resp.status}`, fields);
    }
    const text = typeof detail === "string" ? detail : `${resp.status} ${resp.statusText}`;
    return new ApiError(resp.status, text);
  }
}

/** fetch(path) as JSON (or the Response with raw: true); throws ApiError on any refusal. */
export async function api(path, { method = "GET", body, raw = false } = {}) {
  for (let attempt = 0; ; attempt += 1) {
    const headers = {};
    const key = apiKey();
    if (key) headers.Authorization = `Bearer ${key}`;
    if (body && !(body instanceof FormData)) headers["Content-Type"] = "application/json";
    let resp;
    try {
      resp = await fetch(path, {
        method,
        headers,
        body: body && !(body instanceof FormData) ? JSON.stringify(body) : body,
      });
    } catch (err) {
      throw new ApiError(0, `cannot reach the server (${err.message})`);
    }
    if (resp.status === 401 && askForKey && attempt < 5) {
      const why = key ? "The server refused that key." : "This server needs an API key.";
      if (await askForKey(why)) continue;
    }
    if (!resp.ok) throw await ApiError.from(resp);
    if (raw) return resp;
    return resp.status === 204 ? null : resp.json();
  }
}

const EVENT_TYPES = ["run_started", "node_started", "node_finished", "token", "error", "run_finished"];

/**
 * Follow a run's events. Stored events come once each, in order, from the start (or after
 * `after`); when the connection drops, the browser (or, if it gives up, this code) reconnects
 * with the last id seen, so nothing is lost or repeated. Token events are live only.
 * Returns {close()}.
 */
export function followRun(runId, { tokens = false, onEvent, onLink = () => {} }) {
  let lastId = "0";
  let lastSeq = 0;
  let source = null;
  let closed = false;
  let failures = 0;
  let timer = null;

  const open = () => {
    const params = new URLSearchParams();
    if (lastId !== "0") params.set("after", lastId);
    if (tokens) params.set("tokens", "true");
    if (apiKey()) params.set("access_token", apiKey());
    source = new EventSource(`/v1/runs/${encodeURIComponent(runId)}/events?${params}`);
    onLink("connecting");
    source.onopen = () => {
      failures = 0;
      onLink("live");
    };
    source.onerror = () => {
      if (closed) return;
      onLink("reconnecting");
      if (source.readyState === EventSource.CLOSED) {
        // the browser stopped retrying (e.g. the server answered 5xx): retry with backoff
        failures += 1;
        timer = setTimeout(open, Math.min(10_000, 500 * 2 ** failures));
      }
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (msg) => {
        const seq = Number.parseInt(String(msg.lastEventId).split(".")[0], 10) || 0;
        if (type !== "token") {
          if (seq <= lastSeq) return; // already shown (defensive: the server never repeats)
          lastSeq = seq;
        }
        lastId = msg.lastEventId || lastId;
        let data = {};
        try {
          data = JSON.parse(msg.data);
        } catch {
          data = { message: String(msg.data) };
        }
        onEvent(type, data, seq);
        if (type === "run_finished") stop();
      });
    }
  };

  const stop = () => {
    closed = true;
    clearTimeout(timer);
    if (source) source.close();
    onLink("closed");
  };

  open();
  return {
    close: stop,
    get lastId() {
      return lastId;
    },
  };
}

let pipelinesCache = null;

export function pipelines() {
  pipelinesCache ||= api("/v1/pipelines").catch((err) => {
    pipelinesCache = null;
    throw err;
  });
  return pipelinesCache;
}

let schemaCache = null;

/** The run options' JSON schema, read off the server's OpenAPI document. */
export async function runOptionsSchema() {
  schemaCache ||= api("/openapi.json").catch((err) => {
    schemaCache = null;
    throw err;
  });
  const spec = await schemaCache;
  return spec.components.schemas.RunOptionsIn;
}
