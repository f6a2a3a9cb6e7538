// bidlab serve: the bid-odds page. The query lives in the URL (shareable); the answer
// streams from /api/odds/stream (progress lines, then the result).
"use strict";

const form = $("form");
let info = null;            // the configuration: deck, seats, trump, options
let chosen = [];            // deck indices of the hand, in click order
let running = null;         // the AbortController of the query in flight

const RANKS = { 11: "J", 12: "Q", 13: "K", 14: "A" };
function cardLabel(c) {
  if (c.special) return c.special;
  return (RANKS[c.rank] || String(c.rank)) + SUIT_SYMBOL[c.suit];
}

function canon(token) {
  let t = token.trim().toUpperCase();
  for (const [s, sym] of Object.entries(SUIT_SYMBOL)) t = t.split(sym).join(s);
  if (/^T[SHDC]$/.test(t)) t = "10" + t.slice(1);
  return t;
}

function handText() { return chosen.map((i) => info.deck[i].name).join(" "); }

function syncButtons() {
  $("deck").querySelectorAll(".card").forEach((b) => {
    b.classList.toggle("on", chosen.includes(Number(b.dataset.index)));
    b.setAttribute("aria-pressed", chosen.includes(Number(b.dataset.index)));
  });
  const n = chosen.length;
  $("count").textContent = n ? `${n} card${n > 1 ? "s" : ""} (hand size ${n}; this game deals 1 to ${info.max_hand})` : "";
}

// typed text -> chosen cards (unknown tokens are left for the server to name)
function fromText() {
  chosen = [];
  for (const token of $("hand").value.split(/[\s,]+/).filter(Boolean)) {
    const name = canon(token);
    const i = info.deck.findIndex((c, k) => c.name === name && !chosen.includes(k));
    if (i >= 0) chosen.push(i);
  }
  syncButtons();
}

function renderDeck() {
  const box = $("deck");
  box.textContent = "";
  const rows = { S: [], H: [], D: [], C: [], special: [] };
  info.deck.forEach((c, i) => { (c.special ? rows.special : rows[c.suit]).push(i); });
  for (const [suit, idx] of Object.entries(rows)) {
    if (!idx.length) continue;
    idx.sort((a, b) => (info.deck[b].rank || 0) - (info.deck[a].rank || 0));
    const row = el("div", { class: "suit" });
    for (const i of idx) {
      const c = info.deck[i];
      const cls = "card" + (c.special ? " special" : "") + (SUIT_RED[c.suit] ? " red" : "");
      row.append(el("button", { type: "button", class: cls, "data-index": i, "data-card": c.name,
        title: c.name, onclick: () => toggle(i) }, cardLabel(c)));
    }
    box.append(row);
  }
  syncButtons();
}

function toggle(i) {
  chosen = chosen.includes(i) ? chosen.filter((k) => k !== i) : chosen.concat([i]);
  $("hand").value = handText();
  syncButtons();
}

function seatName(s, n) {
  if (s === n - 1) return `${s} \u2014 the dealer`;
  if (s === 0) return `0 \u2014 dealer's left`;
  return `${s} \u2014 ${s + 1} seats left of the dealer`;
}

function renderSeats(keep) {
  const seat = $("seat");
  seat.textContent = "";
  for (let s = 0; s < info.players; s++) seat.append(el("option", { value: s }, seatName(s, info.players)));
  if (keep !== undefined && keep !== null && Number(keep) < info.players) seat.value = keep;
  renderTrump($("trump").value);
  earlierHint();
}

function renderTrump(keep) {
  const t = $("trump");
  const who = { fixed: "Trump (fixed by the rules)", turn_up: "Turned-up trump",
                dealer: "Trump named by the dealer", first_bidder: "Trump named by the first bidder",
                maker: "Trump you would name" }[info.trump_chooser] || "Trump";
  $("trump-label").textContent = who;
  t.textContent = "";
  t.append(el("option", { value: "" }, info.trump_chooser === "fixed" ? "as the rules fix it"
    : info.trump_chooser === "turn_up" ? "\u2014 pick the turned-up suit \u2014" : "\u2014 not given (a policy chooses) \u2014"));
  for (const c of info.trump_choices) t.append(el("option", { value: c }, TRUMP_WORD[c] || c));
  if (keep && info.trump_choices.includes(keep)) t.value = keep;
}

function earlierHint() {
  const seat = Number($("seat").value || 0);
  const earlier = info.earlier[String(seat)] || [];
  const input = $("bids_before");
  let hint;
  if (info.bidding === "simultaneous") hint = "none: bids are simultaneous";
  else if (info.bidding === "auction") hint = "none: each contract is played as if you won the auction";
  else if (!earlier.length) hint = "none: this seat bids first";
  else hint = `${earlier.length} bid${earlier.length > 1 ? "s" : ""}, seats ${earlier.join(", ")} in bidding order (empty: any)`;
  $("earlier-hint").textContent = hint;
  input.disabled = !earlier.length;
  if (!earlier.length) input.value = "";
}

function optionValues(sets) {
  const out = {};
  for (const s of sets) { const [k, v] = s.split("="); out[k] = v; }
  return out;
}

async function loadGame(game, players, sets) {
  const p = new URLSearchParams({ game });
  if (players) p.set("players", players);
  for (const s of sets || []) p.append("set", s);
  info = await getJSON(`/api/game?${p}`);
  $("players").value = info.players;
  $("players").min = info.player_range[0];
  $("players").max = info.player_range[1];
  optionInputs($("options"), info, optionValues(sets || []));
  const keepSeat = $("seat").value;
  renderSeats(keepSeat === "" ? 0 : keepSeat);
  const before = $("hand").value;
  renderDeck();
  $("hand").value = before;
  fromText();
}

function query() {
  const p = new URLSearchParams();
  p.set("game", $("game").value);
  p.set("players", $("players").value);
  for (const s of optionSets($("options"), info)) p.append("set", s);
  p.set("hand", $("hand").value.trim());
  p.set("seat", $("seat").value);
  if ($("trump").value) p.set("trump", $("trump").value);
  if ($("bids_before").value.trim()) p.set("bids_before", $("bids_before").value.trim());
  const fields = [$("field").value];
  if ($("panel").checked) for (const f of ["table", "heuristic", "greedy"]) if (!fields.includes(f)) fields.push(f);
  p.set("field", fields.join(","));
  p.set("samples", $("samples").value);
  p.set("seed", $("seed").value);
  return p;
}

async function run() {
  clearErrors(form);
  if (running) running.abort();          // the server cancels the abandoned query
  const controller = new AbortController();
  running = controller;
  const p = query();
  history.replaceState(null, "", `/odds?${p}`);
  setProgress(0, "working\u2026");
  $("go").disabled = true;
  const started = performance.now();
  try {
    const r = await fetch(`/api/odds/stream?${p}`, { signal: controller.signal });
    const last = await readStream(r, (line) => {
      if (line.progress !== undefined) setProgress(line.progress, line.note);
    });
    const secs = ((performance.now() - started) / 1000).toFixed(2);
    setProgress(1, `done in ${secs} s${last.cache === "hit" ? " (cached)" : ""}`);
    render(last.result);
  } catch (e) {
    if (e.name === "AbortError") return;
    setProgress(0, "");
    showError(form, e.message, e.field);
    $("result").textContent = "";
  } finally {
    if (running === controller) { running = null; $("go").disabled = false; }
  }
}

// ---- the answer ---------------------------------------------------------------------
function blocks(res) {
  if (!res.grouped) return [{ sum: null, rows: res.rows }];
  const sums = [...new Set(res.rows.map((r) => r.bids_before_sum))];
  return sums.map((s) => ({ sum: s, rows: res.rows.filter((r) => r.bids_before_sum === s) }));
}

function chart(res, rows, title) {
  const W = 560, H = 230, L = 48, R = 10, T = 22, B = 40;
  const played = rows.filter((r) => r.n > 0);
  const lo = Math.min(0, ...played.map((r) => r.ci_low));
  const hi = Math.max(0, ...played.map((r) => r.ci_high));
  const span = hi - lo || 1;
  const y = (v) => T + (H - T - B) * (1 - (v - lo) / span);
  const step = (W - L - R) / rows.length;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", W);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  const add = (tag, attrs, text) => {
    const n = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
  add("text", { x: L, y: 13 }, title);
  for (let k = 0; k <= 4; k++) {
    const v = lo + (span * k) / 4;
    add("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e3e7eb" });
    add("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(1));
  }
  add("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#5b6670" });
  rows.forEach((r, i) => {
    const cx = L + step * (i + 0.5);
    const name = res.auction ? r.contract : String(r.bid);
    add("text", { x: cx, y: H - B + 14, "text-anchor": "middle" }, name);
    if (!r.n) { add("text", { x: cx, y: y(0) - 4, "text-anchor": "middle", fill: "#999" }, "\u00d7"); return; }
    add("text", { x: cx, y: H - B + 28, "text-anchor": "middle", fill: "#5b6670" }, fmt(r.p_exact, 2));
    const color = r.best ? "var(--best)" : r.stopped_early ? "#b7c6d6" : "var(--bar)";
    const top = Math.min(y(r.expected_score), y(0));
    add("rect", { x: cx - step * 0.3, y: top, width: step * 0.6,
                  height: Math.max(1, Math.abs(y(r.expected_score) - y(0))), fill: color,
                  stroke: r.tie ? "#c99a06" : "none", "stroke-width": r.tie ? 2 : 0,
                  "data-bid": r.bid, "data-best": r.best ? "1" : "0",
                  "data-mean": r.expected_score, class: "bar" });
    add("line", { x1: cx, x2: cx, y1: y(r.ci_low), y2: y(r.ci_high), stroke: "#1d252c", "stroke-width": 1.5 });
    for (const v of [r.ci_low, r.ci_high]) add("line", { x1: cx - 5, x2: cx + 5, y1: y(v), y2: y(v), stroke: "#1d252c" });
  });
  add("text", { x: 4, y: H - B + 28, fill: "#5b6670" }, res.auction ? "P(made)" : "P(exact)");
  add("text", { x: 4, y: H - B + 14, fill: "#5b6670" }, res.auction ? "contract" : "bid");
  return svg;
}

function trickChart(res, row) {
  const W = 360, H = 160, L = 34, T = 32, B = 22;
  const ps = res.tricks.map((k) => row[k] || 0);
  const top = Math.max(...ps, 0.01);
  const step = (W - L - 6) / ps.length;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", W);
  svg.setAttribute("id", "tricks-chart");
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
  };
  add("text", { x: L, y: 12 }, `tricks taken with bid ${res.auction ? row.contract : row.bid}${res.auction ? " (the side's)" : ""}`);
  ps.forEach((p, k) => {
    const h = (H - T - B) * (p / top);
    const x = L + step * k;
    add("rect", { x: x + step * 0.15, y: H - B - h, width: step * 0.7, height: h,
                  fill: k === row.bid && !res.auction ? "var(--best)" : "var(--bar)" });
    add("text", { x: x + step / 2, y: H - 6, "text-anchor": "middle" }, k);
    if (p >= 0.005) add("text", { x: x + step / 2, y: H - B - h - 3, "text-anchor": "middle", fill: "#5b6670" }, p.toFixed(2));
  });
  return svg;
}

function oddsTable(res, rows) {
  const exact = res.auction ? "P(made)" : "P(exact)";
  const head = el("tr", {}, el("th", {}, res.auction ? "contract" : "bid"), el("th", {}, "n"),
    el("th", {}, exact), el("th", {}, "E[score]"), el("th", {}, "95% CI"),
    el("th", { title: "paired difference to the best on the same deals, Holm 95%" }, "vs best"),
    el("th", {}, "mean tricks"), res.tricks.map((k) => el("th", { class: "pk", title: `chance of taking ${k.slice(1)} tricks${res.auction ? " (the side's)" : ""}` }, `P${k.slice(1)}`)),
    el("th", {}, ""));
  const body = rows.map((r) => {
    const mark = r.forbidden ? (res.constraint === "max_bet" ? "forbidden (max bet)" : "forbidden (hook)")
      : r.best ? "\u2605 best" : r.stopped_early ? "raced out" : r.tie ? "tie" : "";
    if (r.forbidden) return el("tr", {}, el("td", {}, res.auction ? r.contract : r.bid), el("td", {}, "\u2013"),
      el("td", { colspan: 5 + res.tricks.length }, ""), el("td", {}, mark));
    return el("tr", { class: r.best ? "bestrow" : "" },
      el("td", {}, res.auction ? r.contract : r.bid), el("td", {}, r.n.toLocaleString()),
      el("td", {}, fmt(r.p_exact)), el("td", {}, fmt(r.expected_score, 2)),
      el("td", {}, `[${fmt(r.ci_low, 2)}, ${fmt(r.ci_high, 2)}]`),
      el("td", {}, r.best ? "" : r.diff_low === null ? "n/a" : `${signed(r.diff_to_best)} [${signed(r.diff_low)}, ${signed(r.diff_high)}]`),
      el("td", {}, fmt(r.mean_tricks, 2)), res.tricks.map((k) => el("td", { class: "pk" }, fmt(r[k], 2))),
      el("td", {}, mark));
  });
  return el("table", { class: "data", id: "odds-table" }, el("thead", {}, head), el("tbody", {}, body));
}

function panelBox(res) {
  if (!res.panel) return null;
  const rows = res.panel.rows.map((r) => el("tr", {}, el("td", {}, r.bidder || r.field),
    res.grouped ? el("td", {}, r.bids_before_sum) : null, el("td", {}, r.best_bid),
    el("td", {}, fmt(r.expected_score, 2)), el("td", {}, `[${fmt(r.ci_low, 2)}, ${fmt(r.ci_high, 2)}]`),
    el("td", {}, `${r.accepted.toLocaleString()} of ${r.dealt.toLocaleString()}`)));
  return el("div", { class: "panel", id: "panel-box" }, el("h3", {}, "Field sensitivity"),
    el("p", { class: "note" }, "The same deals, with the opponents bidding by each policy."),
    el("table", { class: "data" }, el("thead", {}, el("tr", {}, el("th", {}, "opponents bid by"),
      res.grouped ? el("th", {}, "sum") : null, el("th", {}, "best bid"), el("th", {}, "E[score]"),
      el("th", {}, "95% CI"), el("th", {}, "deals accepted"))), el("tbody", {}, rows)),
    el("p", {}, res.panel.robust ? "The best bid is the same against every field."
      : "The best bid depends on how the opponents bid."),
    Object.entries(res.panel.warnings || {}).flatMap(([f, ws]) =>
      ws.map((w) => el("p", { class: "note" }, `${f}: ${w}`))));
}

function sheetBox(res) {
  const s = res.sheet || {};
  const box = el("div", { class: "panel", id: "sheet-box" }, el("h3", {}, "Cheat sheet"));
  if (s.missing) { box.append(el("p", { class: "note" }, s.missing)); return box; }
  const words = (c) => Object.entries(c || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  if (s.nearest) {
    box.append(el("p", { class: "note" }, `The sheet lists no cell for this hand's class (${words(s.class)}): ` +
      "no hand like it came up in the sheet's deals. A reader of the printed sheet takes the nearest cell:"));
  }
  box.append(el("p", {}, s.nearest ? "Nearest cell: " : "This hand's cell: ", el("span", { class: "sheetcell" }, s.text),
    el("span", { class: "note" }, ` (class ${words(s.nearest ? s.cell_class : s.class)}; ${s.n.toLocaleString()} deals${s.thin ? ", thin" : ""})`)));
  if (s.compact_bid !== undefined) box.append(el("p", {}, `The printed one-page sheet says: bid ${s.compact_bid}.`));
  return box;
}

function render(res) {
  const out = $("result");
  out.textContent = "";
  const seatWord = seatName(res.seat, Number(res.query.players || info.players));
  const trump = res.trump ? `trump ${TRUMP_WORD[res.trump] || res.trump}, ${res.trump_mode}` :
    res.trump_mode === "chosen by this seat" ? "trump chosen by this seat's policy" : "trump as the rules choose it";
  for (const b of blocks(res)) {
    const best = b.rows.find((r) => r.best);
    const lead = b.sum === null ? "" : `Earlier bids summing to ${b.sum}${b.sum > res.hand_size ? "+" : ""}: `;
    out.append(el("h2", {}, lead, "Bid ", el("span", { class: "best", id: b.sum === null ? "best-bid" : `best-bid-${b.sum}` },
      res.auction ? best.contract : best.bid),
      el("small", { class: "note" }, `  E[score] ${fmt(best.expected_score, 2)} [${fmt(best.ci_low, 2)}, ${fmt(best.ci_high, 2)}], ${res.auction ? "P(made)" : "P(exact)"} ${fmt(best.p_exact)}`)));
    const ties = b.rows.filter((r) => r.tie && !r.best).map((r) => res.auction ? r.contract : r.bid);
    if (ties.length) out.append(el("p", { class: "tie", id: "tie-note" }, `Too close to call: ${[res.auction ? best.contract : best.bid, ...ties].join(", ")} \u2014 the Holm 95% interval of the difference to the best covers 0.`));
    out.append(chart(res, b.rows, `E[score] by ${res.auction ? "contract" : "bid"} with 95% intervals; best in orange${res.better === "lower" ? " (lower is better)" : ""}`));
  }
  out.append(el("p", { class: "note", id: "acceptance" },
    `${res.hand} in seat ${seatWord}; ${trump}. ${res.accepted.toLocaleString()} of ${res.dealt.toLocaleString()} deals accepted (${(100 * res.acceptance).toFixed(1)} %); others play ${res.play} and bid ${res.bid_label || res.bid}; seed ${res.seed}. ${res.teams ? "E[score] is the partnership's." : "E[score] is this seat's own score for the hand."}${res.better === "lower" ? " Lower scores are better." : ""}`));
  for (const w of res.warnings || []) out.append(el("p", { class: "warn" }, `Warning: ${w}`));
  const first = blocks(res)[0].rows.find((r) => r.best);
  out.append(trickChart(res, first));
  for (const b of blocks(res)) out.append(oddsTable(res, b.rows));
  if (res.rows.some((r) => r.stopped_early)) {
    out.append(el("p", { class: "note" }, "Raced out: clearly worse than the best on the same deals (paired 99.9% interval), so played on fewer deals."));
  }
  const panel = panelBox(res);
  if (panel) out.append(panel);
  out.append(sheetBox(res));
  const link = location.href;
  out.append(el("div", { class: "share" }, el("input", { type: "text", readonly: true, value: link, id: "share" }),
    el("button", { type: "button", class: "secondary", onclick: () => navigator.clipboard && navigator.clipboard.writeText(link) }, "Copy link")));
}

// ---- wiring -------------------------------------------------------------------------
async function init() {
  const p = new URLSearchParams(location.search);
  const game = p.get("game") || "hoffer";
  await fillGames($("game"), game);
  try {
    await loadGame($("game").value, p.get("players"), p.getAll("set"));
  } catch (e) {
    showError(form, e.message, e.field);
    await loadGame($("game").value, null, []);
  }
  if (p.get("seat") !== null && Number(p.get("seat")) < info.players) { $("seat").value = p.get("seat"); earlierHint(); }
  if (p.get("trump")) { renderTrump(p.get("trump")); }
  if (p.get("bids_before")) $("bids_before").value = p.get("bids_before");
  const fields = (p.get("field") || "table").split(",");
  $("field").value = fields[0];
  $("panel").checked = fields.length > 1;
  if (p.get("samples")) $("samples").value = p.get("samples");
  if (p.get("seed")) $("seed").value = p.get("seed");
  if (p.get("hand")) { $("hand").value = p.get("hand"); fromText(); run(); }
}

form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
$("hand").addEventListener("input", fromText);
$("clear").addEventListener("click", () => { chosen = []; $("hand").value = ""; syncButtons(); });
$("seat").addEventListener("change", earlierHint);
$("game").addEventListener("change", async () => {
  clearErrors(form);
  $("hand").value = "";
  chosen = [];
  $("seat").value = "";
  try { await loadGame($("game").value, null, []); } catch (e) { showError(form, e.message, e.field); }
});
$("players").addEventListener("change", async () => {
  clearErrors(form);
  try { await loadGame($("game").value, $("players").value, optionSets($("options"), info)); }
  catch (e) { showError(form, e.message, e.field); }
});
$("options").addEventListener("change", async () => {
  clearErrors(form);
  try { await loadGame($("game").value, $("players").value, optionSets($("options"), info)); }
  catch (e) { showError(form, e.message, "set"); }
});
$("file").addEventListener("change", async () => {
  clearErrors(form);
  const file = $("file").files[0];
  if (!file) return;
  try {
    const up = await uploadVariant(file);
    await fillGames($("game"), up.game);
    $("hand").value = "";
    chosen = [];
    await loadGame(up.game, null, []);
  } catch (e) { showError(form, e.message, e.field || "file"); }
});
init().catch((e) => showError(form, e.message, e.field));
