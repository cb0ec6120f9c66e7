// The pipeline's graph (GET /v1/pipelines) drawn as SVG, top to bottom, and lit by run events.

import { fmtInt, fmtMs, s } from "./dom.js";

const NODE_H = 40;
const ROW_GAP = 30;
const COL_GAP = 14;
const PAD = 16;
const CHAR_W = 7.2;

/** Layers by longest path over the forward edges (loops drawn as back edges on the side). */
export function layout(info) {
  const nodes = info.nodes.filter((n) => !n.startsWith("__"));
  const inner = info.edges.filter((e) => !e.source.startsWith("__") && !e.target.startsWith("__"));
  const out = new Map(nodes.map((n) => [n, []]));
  for (const e of inner) out.get(e.source)?.push(e);
  const roots = info.edges.filter((e) => e.source === "__start__").map((e) => e.target);
  const mark = new Map();
  const back = new Set();
  const visit = (n) => {
    mark.set(n, 1);
    for (const e of out.get(n) || []) {
      const m = mark.get(e.target);
      if (m === 1) back.add(e);
      else if (!m) visit(e.target);
    }
    mark.set(n, 2);
  };
  for (const n of [...roots, ...nodes]) if (!mark.get(n)) visit(n);

  const forward = inner.filter((e) => !back.has(e));
  const layer = new Map(nodes.map((n) => [n, 0]));
  for (let k = 0; k < nodes.length; k += 1) {
    for (const e of forward) {
      if (layer.get(e.target) < layer.get(e.source) + 1) layer.set(e.target, layer.get(e.source) + 1);
    }
  }
  const rows = [];
  for (const n of nodes) (rows[layer.get(n)] ||= []).push(n);
  const width = (n) => Math.max(96, n.length * CHAR_W + 26);
  const x = new Map();
  const rowWidth = (row) => row.reduce((a, n) => a + width(n), 0) + COL_GAP * (row.length - 1);
  const side = back.size ? 150 : 0; // room for loop edges on the right
  const maxW = Math.max(...rows.map(rowWidth), 200) + 2 * PAD + side;
  rows.forEach((row, r) => {
    if (r > 0) {
      // order by the mean position of the parents: fewer crossings
      const centre = (n) => {
        const ps = forward.filter((e) => e.target === n && x.has(e.source)).map((e) => x.get(e.source));
        return ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : 0;
      };
      row.sort((a, b) => centre(a) - centre(b));
    }
    let cursor = (maxW - side - rowWidth(row)) / 2;
    for (const n of row) {
      x.set(n, cursor + width(n) / 2);
      cursor += width(n) + COL_GAP;
    }
  });
  const pos = new Map(
    nodes.map((n) => [n, { x: x.get(n), y: PAD + layer.get(n) * (NODE_H + ROW_GAP), w: width(n) }]),
  );
  const height = PAD * 2 + rows.length * (NODE_H + ROW_GAP) - ROW_GAP;
  // a forward edge that skips rows goes round the left of the rows it skips
  const detour = new Map();
  let skips = 0;
  for (const e of forward) {
    const [la, lb] = [layer.get(e.source), layer.get(e.target)];
    if (lb - la > 1) {
      const between = nodes.filter((n) => layer.get(n) > la && layer.get(n) < lb);
      const left = Math.min(...between.map((n) => pos.get(n).x - pos.get(n).w / 2));
      detour.set(e, Math.max(6, left - 18 - 10 * skips++));
    }
  }
  return { nodes, edges: inner, back, detour, pos, width: maxW, height };
}

function edgePath(a, b, isBack, k, detourX = null) {
  if (detourX != null) {
    const y1 = a.y + NODE_H / 2;
    const y2 = b.y + NODE_H / 2;
    const x1 = a.x - a.w / 2;
    const x2 = b.x - b.w / 2 - 6;
    return `M${x1},${y1} C${detourX},${y1} ${detourX},${y1} ${detourX},${(y1 + y2) / 2} ` +
      `S${detourX},${y2} ${x2},${y2}`;
  }
  if (isBack) {
    // out of the right side of the source, round the right, into the right side of the target
    const x1 = a.x + a.w / 2;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x + b.w / 2;
    const y2 = b.y + NODE_H / 2;
    const bulge = Math.max(x1, x2) + 40 + 14 * k;
    return `M${x1},${y1} C${bulge},${y1} ${bulge},${y2} ${x2 + 6},${y2}`;
  }
  const x1 = a.x;
  const y1 = a.y + NODE_H;
  const x2 = b.x;
  const y2 = b.y - 6;
  const my = (y1 + y2) / 2;
  return `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`;
}

export class GraphView {
  constructor(info) {
    this.info = info;
    this.lay = layout(info);
    this.nodes = new Map();
    this.runs = new Map();
    this.edges = [];
    this.stepSources = new Set();
    this.finishedInStep = new Set();
    this.lastWasFinish = false;
    const { width, height, pos } = this.lay;
    this.svg = s("svg", {
      class: "graph", viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": `${info.name} pipeline graph`, preserveAspectRatio: "xMidYMin meet",
    });
    this.svg.style.maxWidth = `${width}px`;
    this.svg.append(
      s("defs", {},
        s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
                      markerHeight: 7, orient: "auto-start-reverse" },
          s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))),
    );
    let k = 0;
    for (const e of this.lay.edges) {
      const isBack = this.lay.back.has(e);
      const dx = this.lay.detour.get(e);
      const d = edgePath(pos.get(e.source), pos.get(e.target), isBack, isBack ? k++ : 0, dx);
      const cls = `edge${e.conditional ? " conditional" : ""}${isBack ? " loop" : ""}`;
      const g = s("g", { class: cls, dataset: { source: e.source, target: e.target } },
        s("path", { d, "marker-end": "url(#arrow)" }));
      if (e.label) {
        const a = pos.get(e.source);
        const b = pos.get(e.target);
        let lx = isBack ? Math.max(a.x + a.w / 2, b.x + b.w / 2) + 44 : (a.x + b.x) / 2;
        let ly = isBack ? (a.y + b.y) / 2 + NODE_H / 2 : (a.y + NODE_H + b.y) / 2 + 4;
        if (dx != null) {
          lx = dx;
          ly = (a.y + b.y) / 2 + NODE_H / 2;
        }
        g.append(s("text", { x: lx, y: ly, class: "edge-label", "text-anchor": "middle" }, e.label));
      }
      this.edges.push({ e, g });
      this.svg.append(g);
    }
    for (const n of this.lay.nodes) {
      const p = pos.get(n);
      const title = s("title", {}, n);
      const meta = s("text", { x: p.x, y: p.y + 31, class: "node-meta", "text-anchor": "middle" }, "");
      const g = s("g", { class: "node", dataset: { node: n, state: "idle" }, tabindex: 0 },
        title,
        s("rect", { x: p.x - p.w / 2, y: p.y, width: p.w, height: NODE_H, rx: 9 }),
        s("text", { x: p.x, y: p.y + (NODE_H / 2) - 3, class: "node-label", "text-anchor": "middle" }, n),
        meta);
      this.nodes.set(n, { g, meta, title });
      this.svg.append(g);
    }
  }

  /** state: running | done | degraded | skipped | failed */
  set(node, state, { meta, title } = {}) {
    const n = this.nodes.get(node);
    if (!n) return;
    n.g.dataset.state = state;
    if (meta != null) n.meta.textContent = meta;
    if (title != null) n.title.textContent = `${node}\n${title}`;
  }

  onEvent(type, data) {
    const node = data.node;
    if (type === "node_started") {
      const count = (this.runs.get(node) || 0) + 1;
      this.runs.set(node, count);
      this.set(node, "running", { meta: count > 1 ? `running (pass ${count})` : "running" });
      // the edges it came by: from the nodes of the step before (LangGraph runs in steps; a
      // step's nodes all start after the previous step's have finished)
      if (this.lastWasFinish) {
        this.stepSources = this.finishedInStep;
        this.finishedInStep = new Set();
      }
      this.lastWasFinish = false;
      for (const { e, g } of this.edges) {
        if (e.target === node && this.stepSources.has(e.source)) g.classList.add("taken");
      }
    } else if (type === "node_finished") {
      this.finishedInStep.add(node);
      this.lastWasFinish = true;
      const count = this.runs.get(node) || 1;
      const state = { ok: "done", degraded: "degraded", skipped: "skipped", error: "failed" }[data.outcome] || "done";
      const bits = [fmtMs(data.duration_ms), data.tokens ? `${fmtInt(data.tokens)} tok` : "", count > 1 ? `×${count}` : ""];
      this.set(node, state, { meta: bits.filter(Boolean).join(" · "), title: data.summary || data.outcome });
    } else if (type === "run_started" && data.resumed) {
      // a restart interrupted these nodes: they run again from the start, as one pass
      for (const [name, n] of this.nodes) {
        if (n.g.dataset.state !== "running") continue;
        this.runs.set(name, Math.max(0, (this.runs.get(name) || 1) - 1));
        this.set(name, "idle", { meta: "" });
      }
    } else if (type === "error" && node) {
      this.set(node, "failed", { meta: "failed", title: data.message });
    } else if (type === "run_finished") {
      for (const [name, n] of this.nodes) {
        if (n.g.dataset.state === "idle") n.g.dataset.state = "untaken";
        if (n.g.dataset.state === "running") this.set(name, "skipped", { meta: "stopped" });
      }
      for (const { e, g } of this.edges) {
        const states = [e.source, e.target].map((x) => this.nodes.get(x)?.g.dataset.state);
        if (states.includes("untaken") || !g.classList.contains("taken")) g.classList.add("untaken");
      }
    }
  }
}
