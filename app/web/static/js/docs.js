// The API reference at /docs, drawn from /openapi.json with DOM nodes only (no Swagger UI
// from a CDN, no HTML parsing): each operation with its summary, parameters, body and answers.

import { h, append } from "./dom.js";

const METHODS = ["get", "post", "put", "patch", "delete"];

function refName(schema) {
  if (!schema) return "";
  if (schema.$ref) return schema.$ref.split("/").pop();
  if (schema.type === "array") return `array of ${refName(schema.items) || "values"}`;
  if (schema.anyOf) return schema.anyOf.map(refName).filter(Boolean).join(" | ");
  return schema.type || "";
}

function bodyOf(op) {
  const content = (op.requestBody && op.requestBody.content) || {};
  return Object.entries(content).map(([media, spec]) =>
    h("li", {}, h("code", {}, media), " ", refName(spec.schema)));
}

function operation(path, method, op) {
  const params = (op.parameters || []).map((p) =>
    h("li", {}, h("code", {}, p.name), ` (${p.in}${p.required ? ", required" : ""}) `,
      refName(p.schema), p.description ? `: ${p.description}` : ""));
  const answers = Object.entries(op.responses || {}).map(([code, r]) =>
    h("li", {}, h("code", {}, code), " ", r.description || ""));
  const body = bodyOf(op);
  return h("section", { class: "card" },
    h("h3", {}, h("code", {}, method.toUpperCase()), " ", h("code", {}, path)),
    op.summary ? h("p", {}, op.summary) : null,
    op.description ? h("p", { class: "muted" }, op.description) : null,
    params.length ? [h("h4", {}, "Parameters"), h("ul", {}, params)] : null,
    body.length ? [h("h4", {}, "Body"), h("ul", {}, body)] : null,
    h("h4", {}, "Answers"), h("ul", {}, answers));
}

function schemas(spec) {
  const all = (spec.components && spec.components.schemas) || {};
  return Object.entries(all).map(([name, schema]) =>
    h("details", {}, h("summary", {}, h("code", {}, name)),
      h("pre", {}, JSON.stringify(schema, null, 2))));
}

async function main() {
  const root = document.getElementById("docs");
  const resp = await fetch("/openapi.json");
  if (!resp.ok) {
    append(root, h("p", { class: "error" }, `could not read /openapi.json: ${resp.status}`));
    return;
  }
  const spec = await resp.json();
  append(root, h("h1", {}, `${spec.info.title} ${spec.info.version}`),
    spec.info.summary ? h("p", {}, spec.info.summary) : null);
  for (const [path, item] of Object.entries(spec.paths || {})) {
    for (const method of METHODS) {
      if (item[method]) append(root, operation(path, method, item[method]));
    }
  }
  append(root, h("h2", {}, "Schemas"), schemas(spec));
}

main();
