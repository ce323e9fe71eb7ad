// The page of `pingvinas serve`: draws the server's SVG board, lets the person pick a piece and a
// target by clicking, and sends the move to the JSON API (see pingvinas/web/__init__.py).
"use strict";

const $ = (id) => document.getElementById(id);
let game = null;      // the last state the server sent
let selected = null;  // Fish: the chosen penguin's cell ("a1"); Marathon: the chosen piece's kind
let busy = false;
let variants = [];

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data;
  try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function setBusy(on, message) {
  busy = on;
  document.body.dataset.ready = on ? "0" : "1";
  $("board").classList.toggle("busy", on);
  for (const id of ["new", "undo"]) $(id).disabled = on || (id === "undo" && !(game && game.can_undo));
  if (message) $("status").textContent = message;
}

function showError(message) {
  $("error").textContent = message || "";
  $("error").hidden = !message;
}

const LETTERS = "ABCDE";

function statusText(s) {
  if (s.over) return `Game over: ${s.result}.`;
  if (s.to_move === s.human) {
    if (s.game === "fish") {
      return s.phase === "placement" ? "Your turn: click a one-fish floe to place a penguin."
        : "Your turn: click one of your penguins, then a lit floe.";
    }
    return "Your turn: click one of your pieces (on the course or waiting), then a lit cell or a move.";
  }
  return `Player ${LETTERS[s.to_move]} to move...`;
}

function show(s) {
  game = s;
  selected = null;
  $("board").innerHTML = s.svg;
  $("board").className = s.game;
  fitBoard();
  document.body.dataset.gameId = s.id;
  document.body.dataset.ply = String(s.ply);
  document.body.dataset.over = s.over ? "1" : "0";
  if (location.hash !== "#" + s.id) history.replaceState(null, "", "#" + s.id);
  const last = s.moves.length ? s.moves[s.moves.length - 1] : null;
  let text = statusText(s);
  if (last && last.by === "engine" && !s.over) text = `The engine played ${last.move}. ` + text;
  $("status").textContent = text;
  // Scores: Fish (fish, floes); Marathon: pieces finished.
  const rows = [];
  for (let p = 0; p < s.players; p++) {
    const who = p === s.human ? "you" : "engine";
    const score = s.game === "fish" ? `${s.scores[p][0]} fish, ${s.scores[p][1]} floe${s.scores[p][1] === 1 ? "" : "s"}` : `${s.scores[p]} of 3 finished`;
    const place = s.ranking ? ` (place ${s.ranking[p]})` : "";
    rows.push(`<tr data-player="${p}"><td>${LETTERS[p]}</td><td>${who}</td><td class="score">${score}${place}</td></tr>`);
  }
  $("scores").innerHTML = rows.join("");
  $("moves").innerHTML = s.moves.map((m) =>
    `<li class="${m.by}" title="${m.by}${m.value !== undefined ? ", value " + m.value : ""}">${LETTERS[m.player]}: ${m.move}</li>`).join("");
  const list = $("moves");
  list.scrollTop = list.scrollHeight;
  $("download").href = `/api/games/${s.id}/record`;
  $("download").setAttribute("download", `pingvinas-${s.variant}-${s.id}.json`);
  $("help").textContent = `${s.variant}: you are ${LETTERS[s.human]}; the engine plays ${s.engine}, ${s.seconds} s a move.`;
  decorate();
}

// The picture at up to 1.5 times its natural size, within the window's width and height.
function fitBoard() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const box = svg.viewBox && svg.viewBox.baseVal;
  const w = (box && box.width) || parseFloat(svg.getAttribute("width")) || 400;
  const h = (box && box.height) || parseFloat(svg.getAttribute("height")) || 400;
  const scale = Math.min(1.5, (window.innerWidth - 40) / w, Math.max(200, window.innerHeight - 90) / h);
  svg.style.width = `${Math.round(w * scale)}px`;
  svg.style.height = `${Math.round(h * scale)}px`;
}
window.addEventListener("resize", fitBoard);

function mine() { return game && !game.over && game.to_move === game.human ? game.legal : []; }

function cells(selector) { return Array.from($("board").querySelectorAll(selector)); }

function decorate() {
  for (const el of cells(".selectable, .selected, .target")) el.classList.remove("selectable", "selected", "target");
  $("choices").hidden = true;
  const legal = mine();
  if (!legal.length) return;
  if (game.game === "fish") {
    if (legal[0].src === null) {  // placement: every legal floe is a target
      for (const m of legal) for (const el of cells(`g.floe[data-cell="${m.dst}"]`)) el.classList.add("target");
      return;
    }
    for (const m of legal) for (const el of cells(`g.penguin[data-cell="${m.src}"]`)) el.classList.add("selectable");
    if (selected) {
      for (const el of cells(`g.penguin[data-cell="${selected}"]`)) el.classList.add("selected");
      for (const m of legal) if (m.src === selected) {
        for (const el of cells(`g.floe[data-cell="${m.dst}"]`)) el.classList.add("target");
      }
    }
    return;
  }
  const kinds = new Set(legal.map((m) => m.piece));
  for (const kind of kinds) for (const el of cells(`[data-piece="${game.human} ${kind}"]`)) el.classList.add("selectable");
  if (selected) {
    for (const el of cells(`[data-piece="${game.human} ${selected}"]`)) el.classList.add("selected");
    const moves = legal.filter((m) => m.piece === selected);
    for (const m of moves) if (m.dst) for (const el of cells(`rect.cell[data-cell="${m.dst}"]`)) el.classList.add("target");
    showChoices(moves);
  }
}

function showChoices(moves) {
  $("choice-list").innerHTML = "";
  for (const m of moves) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = m.move;
    b.dataset.move = m.move;
    b.addEventListener("click", () => play(m.move));
    $("choice-list").appendChild(b);
  }
  $("choices").hidden = moves.length === 0;
}

function onBoardClick(event) {
  const legal = mine();
  if (busy || !legal.length) return;
  showError("");
  if (game.game === "fish") {
    const el = event.target.closest("[data-cell]");
    if (!el) return;
    const cell = el.dataset.cell;
    const placing = legal[0].src === null;
    const direct = legal.find((m) => (placing ? m.dst === cell : m.src === selected && m.dst === cell));
    if (direct) return play(direct.move);
    if (!placing && legal.some((m) => m.src === cell)) selected = cell === selected ? null : cell;
    else selected = null;
    return decorate();
  }
  const piece = event.target.closest("[data-piece]");
  if (piece) {
    const [owner, kind] = piece.dataset.piece.split(" ");
    if (Number(owner) === game.human && legal.some((m) => m.piece === kind)) {
      selected = kind === selected ? null : kind;
      return decorate();
    }
  }
  const el = event.target.closest("rect.cell[data-cell]");
  if (el && selected) {
    const moves = legal.filter((m) => m.piece === selected && m.dst === el.dataset.cell);
    if (moves.length === 1) return play(moves[0].move);
    if (moves.length > 1) return showChoices(moves);  // the same cell, different facings
  }
}

async function play(move) {
  if (busy) return;
  setBusy(true, `You played ${move}; the engine is thinking...`);
  try {
    show(await api("POST", `/api/games/${game.id}/move`, { move }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
  }
}

async function undo() {
  if (busy || !game) return;
  setBusy(true, "Taking back...");
  try { show(await api("POST", `/api/games/${game.id}/undo`)); }
  catch (e) { showError(e.message); }
  finally { setBusy(false); }
}

function fillSeats() {
  const v = variants.find((x) => x.name === $("variant").value);
  const seat = $("seat").value;
  $("seat").innerHTML = "";
  for (let p = 0; p < (v ? v.players : 2); p++) {
    const o = document.createElement("option");
    o.value = String(p);
    o.textContent = `${LETTERS[p]} (${p === 0 ? "first" : "player " + p})`;
    $("seat").appendChild(o);
  }
  if (seat && Number(seat) < (v ? v.players : 2)) $("seat").value = seat;
}

async function newGame(event) {
  if (event) event.preventDefault();
  if (busy) return;
  showError("");
  setBusy(true, "Dealing...");
  try {
    show(await api("POST", "/api/games", { variant: $("variant").value, human: Number($("seat").value) }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
  }
}

async function start() {
  $("board").addEventListener("click", onBoardClick);
  $("new-game").addEventListener("submit", newGame);
  $("undo").addEventListener("click", undo);
  $("variant").addEventListener("change", fillSeats);
  setBusy(true, "Loading...");
  try {
    const info = await api("GET", "/api/variants");
    variants = info.variants;
    for (const v of variants) {
      const o = document.createElement("option");
      o.value = v.name;
      o.textContent = `${v.name} (${v.players} players)`;
      $("variant").appendChild(o);
    }
    $("variant").value = info.default;
    fillSeats();
    const id = location.hash.slice(1);
    if (id) {
      try { show(await api("GET", `/api/games/${id}`)); return; } catch (e) { /* gone: a new game */ }
    }
    show(await api("POST", "/api/games", { variant: info.default, human: 0 }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (game) $("variant").value = game.variant;
  }
}

start();
