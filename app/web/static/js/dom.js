// Building DOM from data without ever parsing HTML: every string becomes a text node, so
// nothing from a transcript, a report or an error message can run as markup or script.

const SAFE_URL = /^(https?:|blob:|\/|#|\.\/)/i;

function setProp(el, key, value) {
  if (value == null || value === false) return;
  if (key === "class") el.setAttribute("class", value);
  else if (key === "dataset") Object.assign(el.dataset, value);
  else if (key === "style") Object.assign(el.style, value);
  else if (key.startsWith("on") && typeof value === "function") {
    el.addEventListener(key.slice(2), value);
  } else if ((key === "href" || key === "src") && !SAFE_URL.test(String(value))) {
    // javascript:, data: and friends are dropped
  } else el.setAttribute(key, value === true ? "" : String(value));
}

export function append(el, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** h("a", {href: "/x", class: "btn"}, "text", otherNode) */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) setProp(el, k, v);
  return append(el, children);
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, String(v));
  }
  return append(el, children);
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

export function fmtMs(ms) {
  if (ms == null) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function fmtTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function fmtInt(n) {
  return n == null ? "" : Number(n).toLocaleString();
}

/** Save a Blob (or text) as a file through the browser's download. */
export function saveAs(data, filename, type = "application/octet-stream") {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: filename, class: "hidden" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
