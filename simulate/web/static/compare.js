// bidlab serve: the compare page. POST /api/compare streams progress lines, then the
// paired comparison; the CSV is the server's (format=csv, answered from its cache).
"use strict";

const form = $("form");
let info = null;
let running = null;
let lastBody = null;

function words(text) { return text.split(/\s+/).map((s) => s.trim()).filter(Boolean); }

function body() {
  const out = { game: $("game").value, players: Number($("players").value) || null,
                base: words($("base").value), set: words($("set").value),
                games: Number($("games").value), seed: Number($("seed").value),
                policies: $("policies").value.trim() || "precision+heuristic",
                skill: $("skill").checked };
  if ($("sweep").value.trim()) out.sweep = $("sweep").value.trim();
  if ($("vs").value) out.vs = $("vs").value;
  return out;
}

async function loadGame(game, players) {
  const p = new URLSearchParams({ game });
  if (players) p.set("players", players);
  info = await getJSON(`/api/game?${p}`);
  $("players").value = info.players;
  const chips = $("chips");
  chips.textContent = "";
  for (const o of info.options) {
    for (const v of o.values.length ? o.values : []) {
      if (String(v) === String(o.value)) continue;
      chips.append(el("button", { type: "button", class: "chip", title: o.help,
        onclick: () => { $("set").value = `${o.name}=${v}`; } }, `${o.name}=${v}`));
    }
  }
}

async function fillVs(games) {
  const vs = $("vs");
  vs.textContent = "";
  vs.append(el("option", { value: "" }, "\u2014 the same game \u2014"));
  for (const g of games) vs.append(el("option", { value: g.game }, g.title));
}

function metricChart(cfg) {
  // B - A as a share of A, with the 95% interval: metrics differ in scale, so a common axis
  // needs a relative one (metrics whose A is 0 are left out)
  const rows = cfg.rows.filter((r) => r.a !== null && Math.abs(r.a) > 1e-9 && r.lo !== null);
  const W = 680, row = 16, L = 330, R = 20, T = 24;
  const H = T + row * rows.length + 24;
  const rel = rows.map((r) => ({ r, d: 100 * r.diff / Math.abs(r.a), lo: 100 * r.lo / Math.abs(r.a), hi: 100 * r.hi / Math.abs(r.a) }));
  const lim = Math.max(1, ...rel.map((x) => Math.max(Math.abs(x.lo), Math.abs(x.hi))));
  const x = (v) => L + (W - L - R) * (v + lim) / (2 * lim);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", W);
  svg.setAttribute("class", "compare-chart");
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
  };
  add("text", { x: 4, y: 13 }, "B \u2212 A as % of A, 95% interval (orange: Holm-significant)");
  add("line", { x1: x(0), x2: x(0), y1: T - 4, y2: H - 20, stroke: "#5b6670" });
  for (const v of [-lim, -lim / 2, lim / 2, lim]) add("text", { x: x(v), y: H - 6, "text-anchor": "middle", fill: "#5b6670" }, `${v > 0 ? "+" : ""}${v.toFixed(1)}%`);
  rel.forEach((m, i) => {
    const y = T + row * i + row / 2;
    const color = m.r.significant ? "var(--best)" : "var(--bar)";
    const name = `${m.r.group.replace(/ \(.*\)$/, "")} \u00b7 ${m.r.label}`;
    add("text", { x: L - 6, y: y + 4, "text-anchor": "end" }, name.length > 56 ? name.slice(0, 55) + "\u2026" : name);
    add("line", { x1: x(m.lo), x2: x(m.hi), y1: y, y2: y, stroke: color, "stroke-width": 2 });
    add("circle", { cx: x(m.d), cy: y, r: 3.5, fill: color, class: "dot" });
  });
  return svg;
}

function metricTable(cfg) {
  let group = null;
  const rows = [];
  for (const r of cfg.rows) {
    if (r.group !== group) { group = r.group; rows.push(el("tr", {}, el("th", { colspan: 6, style: "text-align:left" }, group))); }
    rows.push(el("tr", { class: r.significant ? "sig" : "" }, el("td", { class: "label" }, r.label),
      el("td", {}, fmt(r.a, 4)), el("td", {}, fmt(r.b, 4)), el("td", { class: "diff" }, signed(r.diff, 4)),
      el("td", {}, `[${signed(r.lo, 4)}, ${signed(r.hi, 4)}]`), el("td", {}, r.significant ? "*" : "")));
  }
  return el("table", { class: "data compare-table" }, el("thead", {}, el("tr", {}, el("th", {}, "metric"),
    el("th", {}, "A"), el("th", {}, "B"), el("th", {}, "B \u2212 A"), el("th", {}, "95% CI"),
    el("th", { title: "Holm-corrected over every metric: the difference is not luck" }, "sig."))), el("tbody", {}, rows));
}

async function downloadCsv() {
  const r = await fetch("/api/compare?format=csv", { method: "POST", body: JSON.stringify(lastBody),
                                                    headers: { "Content-Type": "application/json" } });
  if (!r.ok) { const b = await r.json(); showError(form, b.error, b.field); return; }
  const url = URL.createObjectURL(await r.blob());
  const a = el("a", { href: url, download: "bidlab-compare.csv" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function render(res) {
  const out = $("result");
  out.textContent = "";
  out.append(el("p", { class: "note", id: "compare-setup" }, `A: ${res.a}. ${res.games.toLocaleString()} games per configuration on the same deals, seed ${res.seed}, ${res.policies} in every seat. Intervals are paired (game g is dealt alike in A and B); * = significant after Holm's correction over the metrics.`));
  if (res.note) out.append(el("p", { class: "warn" }, res.note));
  out.append(el("div", { class: "share" }, el("button", { type: "button", id: "csv", onclick: downloadCsv }, "Download CSV")));
  for (const cfg of res.configs) {
    out.append(el("h2", {}, `B: ${cfg.label}`), el("p", { class: "note" }, cfg.b));
    if (cfg.same) { out.append(el("p", {}, "B is the same configuration as A; skipped.")); continue; }
    out.append(metricChart(cfg), metricTable(cfg));
  }
}

async function run() {
  clearErrors(form);
  if (running) running.abort();
  const controller = new AbortController();
  running = controller;
  lastBody = body();
  $("go").disabled = true;
  setProgress(0, "starting\u2026");
  const started = performance.now();
  try {
    const r = await fetch("/api/compare", { method: "POST", body: JSON.stringify(lastBody),
      headers: { "Content-Type": "application/json" }, signal: controller.signal });
    const last = await readStream(r, (line) => {
      if (line.progress !== undefined) setProgress(line.progress, line.note);
    });
    setProgress(1, `done in ${((performance.now() - started) / 1000).toFixed(1)} s${last.cache === "hit" ? " (cached)" : ""}`);
    render(last.result);
  } catch (e) {
    if (e.name === "AbortError") return;
    setProgress(0, "");
    showError(form, e.message, e.field);
  } finally {
    if (running === controller) { running = null; $("go").disabled = false; }
  }
}

async function init() {
  const p = new URLSearchParams(location.search);
  const games = await fillGames($("game"), p.get("game") || "kings_and_fools");
  await fillVs(games);
  await loadGame($("game").value, p.get("players"));
  if (p.get("set")) $("set").value = p.getAll("set").join(" ");
}

form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
$("game").addEventListener("change", () => { clearErrors(form); loadGame($("game").value).catch((e) => showError(form, e.message, e.field)); });
$("players").addEventListener("change", () => { clearErrors(form); loadGame($("game").value, $("players").value).catch((e) => showError(form, e.message, e.field)); });
$("file").addEventListener("change", async () => {
  clearErrors(form);
  const file = $("file").files[0];
  if (!file) return;
  try {
    const up = await uploadVariant(file);
    const games = await fillGames($("game"), $("game").value);
    await fillVs(games);
    $("vs").value = up.game;
  } catch (e) { showError(form, e.message, e.field || "file"); }
});
init().catch((e) => showError(form, e.message, e.field));
