// The "New run" form: transcript (paste or file), pipeline and its options, optional financials
// and prices; what the API refuses is shown next to the field, and nothing typed is lost.

import { ApiError, api, pipelines, runOptionsSchema } from "./api.js";
import { clear, h } from "./dom.js";

const FEATURED = ["stream_tokens", "profile", "fact_check", "retriever", "token_budget"];

function optionInput(name, spec) {
  const label = name.replace(/_/g, " ");
  const help = spec.description || "";
  const variants = spec.anyOf || [spec];
  const main = variants.find((v) => v.type && v.type !== "null") || spec;
  const id = `opt-${name}`;
  if (main.type === "boolean") {
    const sel = h("select", { id, name },
      h("option", { value: "" }, "server default"), h("option", { value: "true" }, "on"), h("option", { value: "false" }, "off"));
    if (name === "stream_tokens") sel.value = "true";
    return { name, el: h("label", { class: "field", for: id }, h("span", {}, label), sel, help ? h("small", {}, help) : null),
             value: () => (sel.value === "" ? undefined : sel.value === "true") };
  }
  if (main.enum) {
    const sel = h("select", { id, name }, h("option", { value: "" }, "server default"), main.enum.map((v) => h("option", { value: v }, v)));
    return { name, el: h("label", { class: "field", for: id }, h("span", {}, label), sel, help ? h("small", {}, help) : null),
             value: () => sel.value || undefined };
  }
  if (main.type === "array" && main.items?.enum) {
    const boxes = main.items.enum.map((v) => h("input", { type: "checkbox", value: v }));
    return { name, el: h("fieldset", { class: "field" }, h("legend", {}, label),
                         boxes.map((b) => h("label", { class: "inline" }, b, " ", b.value)), help ? h("small", {}, help) : null),
             value: () => { const on = boxes.filter((b) => b.checked).map((b) => b.value); return on.length ? on : undefined; } };
  }
  if (main.type === "integer" || main.type === "number") {
    const input = h("input", { id, name, type: "number", min: main.minimum, max: main.maximum, step: main.type === "integer" ? 1 : "any", placeholder: "server default" });
    return { name, el: h("label", { class: "field", for: id }, h("span", {}, label), input, help ? h("small", {}, help) : null),
             value: () => (input.value === "" ? undefined : Number(input.value)) };
  }
  const input = h("input", { id, name, type: "text", placeholder: "server default" });
  return { name, el: h("label", { class: "field", for: id }, h("span", {}, label), input), value: () => input.value || undefined };
}

function jsonFileField(name, label, help) {
  let text = null;
  let fileName = null;
  const status = h("small", { class: "muted" }, help);
  const input = h("input", { type: "file", name, accept: ".json,application/json" });
  input.addEventListener("change", async () => {
    const file = input.files[0];
    text = file ? await file.text() : null;
    fileName = file ? file.name : null;
    status.textContent = file ? `${file.name} (${file.size.toLocaleString()} bytes)` : help;
  });
  return {
    name,
    el: h("label", { class: "field", dataset: { field: name } }, h("span", {}, label), input, status),
    value() {
      if (text == null) return undefined;
      try {
        JSON.parse(text);
      } catch (err) {
        const msg = `${fileName} is not valid JSON (${err.message})`;
        const refusal = new ApiError(0, `${name}: ${msg}`, [{ field: name, msg }]);
        refusal.local = true; // found here, before sending
        throw refusal;
      }
      return text;
    },
  };
}

/** The transcript field: a textarea that also takes a dropped or chosen file. */
function transcriptField() {
  const textarea = h("textarea", { id: "transcript", name: "transcript", rows: 14, spellcheck: "false",
    placeholder: "Paste the call here (plain text, or ### Prepared remarks / ### Q&A sections with **SPEAKER** turns), or drop a file…" });
  const field = { file: null, textarea };
  const fileNote = h("span", { class: "muted" });
  const fileInput = h("input", { type: "file", id: "transcript-file", accept: ".txt,.md,.markdown,text/plain,text/markdown" });
  const setFile = (f) => {
    field.file = f || null;
    textarea.disabled = Boolean(field.file);
    clear(fileNote);
    if (field.file) {
      fileNote.append(`${field.file.name} (${field.file.size.toLocaleString()} bytes) `,
        h("button", { type: "button", class: "btn small", onclick: () => { fileInput.value = ""; setFile(null); } }, "Remove"));
    }
  };
  fileInput.addEventListener("change", () => setFile(fileInput.files[0]));
  const drop = h("div", { class: "dropzone", dataset: { field: "transcript" } }, textarea);
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer.files.length) setFile(e.dataTransfer.files[0]);
  });
  field.el = h("div", { class: "field", dataset: { field: "transcript" } },
    h("label", { for: "transcript" }, h("span", {}, "Transcript")), drop,
    h("div", { class: "row" }, h("label", { class: "btn small", for: "transcript-file" }, "Choose file…"), fileInput, fileNote));
  field.append = (body) => {
    if (field.file) body.append("transcript", field.file, field.file.name);
    else body.append("transcript", textarea.value);
  };
  return field;
}

function pipelineField(infos) {
  const select = h("select", { id: "pipeline", name: "pipeline" }, infos.map((p) => h("option", { value: p.name }, p.name)));
  const summary = h("small", { class: "muted" });
  const showSummary = () => { summary.textContent = infos.find((p) => p.name === select.value)?.summary || ""; };
  select.addEventListener("change", showSummary);
  showSummary();
  return { select, el: h("label", { class: "field", for: "pipeline", dataset: { field: "pipeline" } }, h("span", {}, "Pipeline"), select, summary) };
}

function textField(name, label, max) {
  const input = h("input", { id: name, name, type: "text", maxlength: max });
  return { name, input, el: h("label", { class: "field", for: name, dataset: { field: name } }, h("span", {}, label), input) };
}

/** Show a refusal: the message at the top, each field's problem next to the field. */
function showErrors(form, errors, err) {
  clear(errors);
  form.querySelectorAll(".field-error").forEach((e) => e.remove());
  form.querySelectorAll("[data-invalid]").forEach((e) => delete e.dataset.invalid);
  if (!err) return;
  const lead = err.local ? "Not sent" : err.status ? `The server refused the run (${err.status})` : "Not sent";
  errors.append(h("p", { class: "error" }, `${lead}: ${err.message}`));
  for (const f of err.fields || []) {
    const top = (f.field || "").split(".")[0];
    const target = form.querySelector(`[data-field="${CSS.escape(top)}"]`);
    if (target) {
      target.dataset.invalid = "";
      target.append(h("div", { class: "field-error" }, f.field.includes(".") ? `${f.field}: ${f.msg}` : f.msg));
    }
  }
}

/** The multipart body: transcript, pipeline, call info, options (only those set), files. */
function runBody(parts) {
  const body = new FormData();
  parts.transcript.append(body);
  body.append("pipeline", parts.pipeline.select.value);
  for (const m of parts.meta) if (m.input.value.trim()) body.append(m.name, m.input.value.trim());
  const opts = {};
  for (const o of parts.options) {
    const v = o.value();
    if (v !== undefined) opts[o.name] = v;
  }
  body.append("options", JSON.stringify(opts));
  for (const f of parts.files) {
    const v = f.value();
    if (v !== undefined) body.append(f.name, v);
  }
  return body;
}

export async function newRunView(root, navigate) {
  const [infos, schema] = await Promise.all([pipelines(), runOptionsSchema()]);
  const errors = h("div", { class: "form-errors", role: "alert", "aria-live": "assertive" });
  const props = schema.properties || {};
  // the options come from the API's schema (core.options.RunOptions): none is listed here
  const options = Object.keys(props).map((k) => optionInput(k, props[k]));
  const parts = {
    transcript: transcriptField(),
    pipeline: pipelineField(infos),
    meta: [textField("company", "Company", 200), textField("ticker", "Ticker", 20), textField("period", "Period", 50)],
    options,
    files: [
      jsonFileField("financials", "Financials (JSON)", "quarterly statements, Alpha Vantage field names"),
      jsonFileField("prices", "Prices (JSON)", "daily OHLCV before the call"),
    ],
  };
  const submit = h("button", { type: "submit", class: "btn primary" }, "Start run");
  const form = h("form", { class: "card new-run", novalidate: true },
    h("h2", {}, "New run"),
    errors,
    parts.transcript.el,
    h("div", { class: "grid" }, parts.pipeline.el, parts.meta.map((m) => m.el)),
    h("fieldset", { class: "options", dataset: { field: "options" } }, h("legend", {}, "Options"),
      h("div", { class: "grid" }, options.filter((o) => FEATURED.includes(o.name)).map((o) => o.el)),
      h("details", {}, h("summary", {}, "More options"), h("div", { class: "grid" }, options.filter((o) => !FEATURED.includes(o.name)).map((o) => o.el)))),
    h("details", {}, h("summary", {}, "Financials and prices (optional)"), h("div", { class: "grid" }, parts.files.map((f) => f.el))),
    h("div", { class: "row" }, submit));

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    showErrors(form, errors, null);
    let body;
    try {
      body = runBody(parts);
    } catch (err) {
      showErrors(form, errors, err);
      return;
    }
    submit.disabled = true;
    submit.textContent = "Starting…";
    try {
      const created = await api("/v1/runs", { method: "POST", body });
      navigate(`#/runs/${created.id}`);
    } catch (err) {
      showErrors(form, errors, err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      submit.disabled = false;
      submit.textContent = "Start run";
    }
  });
  clear(root).append(form);
}
