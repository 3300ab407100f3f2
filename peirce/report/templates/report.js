"use strict";
(function () {
  const t0 = performance.now();
  const records = JSON.parse(document.getElementById("data").textContent);
  const PAGE = 100;
  const GOOD = new Set(["valid", "stable", "passed", "entailed", "connected", "in chain", "ok"]);
  const BAD = new Set(["error", "refuted", "flagged", "invalid", "failed", "format error", "broken",
    "circular", "deviated", "inconsistent", "format_gate_failed", "gate_failed"]);
  const OPEN = new Set(["unsupported", "propagated", "unknown", "contingent", "too_complex", "outside chain"]);
  function tone(v) { return GOOD.has(v) ? "good" : BAD.has(v) ? "bad" : OPEN.has(v) ? "open" : "none"; }
  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function badge(v) { return el("span", {"class": "v v-" + tone(v)}, v); }
  let view = records, page = 0;
  const rows = document.getElementById("rows");
  const filter = document.getElementById("filter");
  const search = document.getElementById("search");
  function apply() {
    const v = filter.value, q = search.value.trim().toLowerCase();
    view = records.filter(r => (!v || r.verdict === v) &&
      (!q || r.id.toLowerCase().includes(q) || (r.steps || []).some(s => String(s.text).toLowerCase().includes(q))));
    page = 0;
    document.querySelectorAll(".card").forEach(c => c.classList.toggle("active", c.dataset.verdict === v));
    draw();
  }
  function details(r) {
    const box = el("div", {"class": "details"});
    if (r.error) box.appendChild(el("pre", {"class": "error"}, r.error));
    if (r.figures) box.appendChild(el("div", {"class": "figures"},
      Object.entries(r.figures).map(([k, v]) => k + " " + v).join(" · ")));
    const list = el("ol", {"class": "steps"});
    for (const s of r.steps || []) {
      const li = el("li", {"class": "step s-" + tone(s.verdict)});
      li.appendChild(el("span", {}, (s.n != null ? s.n + ". " : "")));
      li.appendChild(badge(s.verdict));
      li.appendChild(el("span", {"class": "text"}, " " + (s.text || "")));
      if (s.reason) li.appendChild(el("div", {"class": "reason"}, s.reason));
      if (s.detail) li.appendChild(el("pre", {"class": "proof"}, s.detail));
      list.appendChild(li);
    }
    box.appendChild(list);
    if (typeof r.drawing === "string" && r.drawing.startsWith("data:image/svg+xml;base64,")) {
      // an image: no script in it runs, none of its links works, none of its styles leaves it
      const d = el("div", {"class": "drawing"});
      d.appendChild(el("img", {"src": r.drawing, "alt": "drawing of " + r.id}));
      box.appendChild(d);
    }
    return box;
  }
  function draw() {
    const pages = Math.max(1, Math.ceil(view.length / PAGE));
    page = Math.min(Math.max(0, page), pages - 1);
    const frag = document.createDocumentFragment();
    for (const r of view.slice(page * PAGE, (page + 1) * PAGE)) {
      const tr = el("tr", {"class": "rec", "data-id": r.id});
      tr.appendChild(el("td", {}, r.id));
      tr.appendChild(el("td", {}, r.command));
      const td = el("td"); td.appendChild(badge(r.verdict)); tr.appendChild(td);
      const first = r.error ? String(r.error).split("\n")[0] : (r.steps || []).length + " step(s)";
      tr.appendChild(el("td", {}, first));
      tr.addEventListener("click", () => {
        const next = tr.nextSibling;
        if (next && next.classList && next.classList.contains("open")) { next.remove(); return; }
        const row = el("tr", {"class": "open"}), cell = el("td", {"colspan": "4"});
        cell.appendChild(details(r)); row.appendChild(cell);
        tr.after(row);
      });
      frag.appendChild(tr);
    }
    rows.replaceChildren(frag);
    document.getElementById("page").textContent = "page " + (page + 1) + " of " + pages;
    document.getElementById("shown").textContent = view.length + " record(s) shown";
  }
  filter.addEventListener("change", apply);
  search.addEventListener("input", apply);
  document.getElementById("prev").addEventListener("click", () => { page--; draw(); });
  document.getElementById("next").addEventListener("click", () => { page++; draw(); });
  document.querySelectorAll(".card").forEach(c => c.addEventListener("click", () => {
    filter.value = c.dataset.verdict; apply();
  }));
  draw();
  const ms = performance.now() - t0;
  document.getElementById("timing").textContent = "Page drawn in " + ms.toFixed(0) + " ms.";
  window.peirceReport = {records: records.length, drawMs: ms};
})();
