"use strict";
// The play page: draws the server's state (carcassonne_env/play/server.py) with the replay
// viewer's drawing (draw.js) and sends the human's choices. It offers only what the server lists
// as legal (placements, options); the server checks every request again.
(function () {
  const data = JSON.parse(document.getElementById("play-data").textContent);
  const draw = carcassonneDrawer(data);
  const $ = draw.$, S = draw.S;
  const board = $("board"), spotsLayer = $("spots"), labelsLayer = $("spot-labels");
  // Above the tiles and spots, under towers and followers: the feature a hovered choice joins.
  const featureLayer = draw.el("g", { id: "choice-feature" });
  board.insertBefore(featureLayer, $("towers"));
  // Above everything on the board but the hint: the choices' numbered markers.
  const marksLayer = draw.el("g", { id: "option-marks" });
  board.insertBefore(marksLayer, $("overlay"));
  const UNDONE = "undone: ";  // the server's prefix of a log line that notes an undo (not a decision)
  let state = null, selected = null, busy = false;
  let hint = null;  // the last hint {decisions, action}: drawn until the game moves on
  let view = null;  // null: the whole board, fitted as it grows; else the box [x, y, w, h] zoomed or panned to

  $("variant").textContent = data.expansions.length ? "with " + data.expansions.join(", ").replaceAll("_", " ") : "base game";
  draw.drawLegend();

  async function call(method, path, body) {
    busy = true;
    try {
      // every request carries the session's token (only this page knows it) and a JSON body
      const response = await fetch(path, { method,
        headers: { "Content-Type": "application/json", [data.token_header]: data.token },
        body: body === undefined ? undefined : JSON.stringify(body) });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.error || response.statusText);
      $("error").textContent = "";
      return answer;
    } catch (e) {
      $("error").textContent = "refused: " + e.message;
      return null;
    } finally {
      busy = false;
    }
  }
  async function update(method, path, body) {
    const answer = await call(method, path, body);
    if (answer) show(answer);
  }
  function text(tag, cls, words) {  // an element holding words as text, never as markup
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    e.textContent = words;
    return e;
  }
  function colour(seat) { return (data.players[seat] || { colour: "#ccc" }).colour; }

  // ------------------------------------------------------------------ zoom and pan
  function box() { return view || draw.fitBox(state ? state.tiles.concat(state.placements) : [[0, 0]]); }
  function applyView() { board.setAttribute("viewBox", box().join(" ")); }
  function fitView() { view = null; applyView(); }
  // Scale the view by factor (< 1 zooms in) keeping the board point (px, py) where it is on screen;
  // the width stays between 2 tiles and 4 × the whole board's.
  function zoom(factor, px, py) {
    if (!state) return;
    const [x, y, w, h] = box();
    const f = Math.min(Math.max(w * factor, 2 * S), 4 * draw.fitBox(state.tiles)[2]) / w;
    view = [px - (px - x) * f, py - (py - y) * f, w * f, h * f];
    applyView();
  }
  function zoomCentre(factor) { const [x, y, w, h] = box(); zoom(factor, x + w / 2, y + h / 2); }
  function pan(dx, dy) { const [x, y, w, h] = box(); view = [x + dx, y + dy, w, h]; applyView(); }
  function boardPoint(e) {  // the board SVG point under the mouse
    return new DOMPoint(e.clientX, e.clientY).matrixTransform(board.getScreenCTM().inverse());
  }

  board.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = boardPoint(e), lines = e.deltaMode === 1 ? 33 : 1;
    zoom(Math.exp(e.deltaY * lines * 0.0015), p.x, p.y);
  }, { passive: false });
  let drag = null, dragged = false;  // a drag pans; the click that ends one picks nothing
  board.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, scale: board.getScreenCTM().a };
    dragged = false;
  });
  window.addEventListener("pointermove", (e) => {
    if (!drag || (!dragged && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 5)) return;
    dragged = true;
    board.classList.add("panning");
    pan((drag.x - e.clientX) / drag.scale, (drag.y - e.clientY) / drag.scale);
    drag.x = e.clientX;
    drag.y = e.clientY;
  });
  window.addEventListener("pointerup", () => { drag = null; board.classList.remove("panning"); });
  board.addEventListener("click", (e) => { if (dragged) { e.stopPropagation(); dragged = false; } }, true);
  board.addEventListener("pointermove", (e) => {  // the cell under the mouse, as the hint and the log name it
    const p = boardPoint(e);
    $("board-coords").textContent = `(${Math.floor(p.x / S)},${-Math.floor(p.y / S)})`;
  });
  board.addEventListener("pointerleave", () => { $("board-coords").textContent = ""; });

  // ------------------------------------------------------------------ the tile to place
  function handSymbol(rotation) { return state.frame.hand.replace(/r0$/, "r" + rotation); }

  // Each spot but the chosen one is labelled with its x,y in the topmost layer, above the hint's
  // faint tile: a label is never covered.
  function drawSpots() {
    spotsLayer.replaceChildren();
    labelsLayer.replaceChildren();
    for (const [x, y, rotations] of state.placements) {
      const isSel = selected && selected.x === x && selected.y === y;
      if (isSel) draw.el("use", { href: "#" + handSymbol(selected.rotations[selected.i]), x: x * S, y: -y * S,
        width: S, height: S, class: "ghost" }, spotsLayer);
      const r = draw.el("rect", { x: x * S + 2, y: -y * S + 2, width: S - 4, height: S - 4,
        class: "spot" + (isSel ? " selected" : ""), "data-x": x, "data-y": y }, spotsLayer);
      draw.el("title", {}, r).textContent = `(${x},${y}): rotations ${rotations.map((q) => q * 90 + "°").join(", ")}`;
      r.addEventListener("click", () => pick(x, y, rotations));
      if (!isSel) draw.el("text", { x: x * S + S / 2, y: -y * S + S - 6, class: "spot-label", "data-x": x, "data-y": y },
        labelsLayer).textContent = `${x},${y}`;
    }
    $("rotate").disabled = !selected || selected.rotations.length < 2;
    $("confirm").disabled = !selected;
    draw.drawHand($("hand"), state.frame.hand ? handSymbol(selected ? selected.rotations[selected.i] : 0) : null);
  }
  function pick(x, y, rotations) {
    if (selected && selected.x === x && selected.y === y) return rotate();
    selected = { x, y, rotations, i: 0 };
    drawSpots();
  }
  function rotate() {
    if (!selected) return;
    selected.i = (selected.i + 1) % selected.rotations.length;
    drawSpots();
  }
  function confirm() {
    if (!selected || busy) return;
    update("POST", "/api/act", { action: [0, selected.x, selected.y, selected.rotations[selected.i]] });
  }
  function act(action) { if (!busy) update("POST", "/api/act", { action }); }

  // ------------------------------------------------------------------ marks on the board
  // Each seat's last tile, framed in its colour. Tile k (k ≥ 1, the start tile is 0) was placed in
  // turn k - 1 by seat (k - 1) mod n: every turn places exactly one tile, seat 0 first.
  function drawLastMoves() {
    const layer = $("last-moves"), n = data.players.length;
    layer.replaceChildren();
    for (let seat = 0; seat < n; seat++) {
      let k = state.tiles.length - 1;
      while (k >= 1 && (k - 1) % n !== seat) k--;
      if (k < 1) continue;
      const [x, y] = state.tiles[k];
      const r = draw.el("rect", { x: x * S + 5, y: -y * S + 5, width: S - 10, height: S - 10, class: "last-move",
        stroke: colour(seat), "data-seat": seat, "data-x": x, "data-y": y }, layer);
      draw.el("title", {}, r).textContent = `${data.players[seat].name}'s last tile, at (${x},${y})`;
    }
  }
  function choiceButton(i) { return document.querySelector(`#choices .choice[data-index="${i}"]`); }
  function sameAction(a, b) { return a.length === b.length && a.every((v, i) => v === b[i]); }
  // The hint: a PLACE as the tile drawn faintly where and as it would go, labelled inside the top
  // of its cell (spot labels sit at the bottom of theirs, above it); another decision as a ring on
  // its marker and its button outlined, scrolled into view.
  function drawHint() {
    const layer = $("hint-mark");
    layer.replaceChildren();
    document.querySelectorAll("#choices .hinted").forEach((b) => b.classList.remove("hinted"));
    if (!hint || hint.decisions !== state.decisions) return;
    const [kind, x, y, arg] = hint.action;
    if (kind === 0 && state.frame.hand) {
      draw.el("use", { href: "#" + handSymbol(arg), x: x * S, y: -y * S, width: S, height: S, class: "hint-ghost" }, layer);
      draw.el("rect", { x: x * S + 1, y: -y * S + 1, width: S - 2, height: S - 2, class: "hint-cell",
        "data-x": x, "data-y": y, "data-rotation": arg }, layer);
      draw.el("text", { x: x * S + S / 2, y: -y * S + 14, class: "hint-label" }, layer).textContent =
        `hint: (${x},${y})${arg ? `, ${arg * 90}°` : ""}`;
      return;
    }
    const i = state.options.findIndex((o) => sameAction(o.action, hint.action));
    if (i < 0) return;
    choiceButton(i).classList.add("hinted");
    choiceButton(i).scrollIntoView({ block: "nearest" });
    const mark = marksLayer.querySelector(`.option-mark[data-index="${i}"]`);  // drawn beside its target
    if (mark) draw.el("circle", { cx: mark.dataset.x, cy: mark.dataset.y, r: MARK_R + 4, class: "hint-ring" }, layer);
  }
  // ------------------------------------------------------------------ the choices' markers
  const MARK_R = 6;  // a marker's radius
  // What a marker must not cover: each follower (a disc) and each tower (its box), board SVG units.
  function obstacles(f) {
    const discs = f.followers.map(([x, y]) => [x, y, draw.MEEPLE / 2]), boxes = [];
    for (const [x, y, floors, top] of f.towers) {
      if (!floors.length) continue;
      const t = draw.towerShape(x, y, floors.length);
      boxes.push(t.box);
      if (top >= 0) discs.push([t.topAt[0], t.topAt[1], draw.TOP_MEEPLE / 2]);
    }
    return { discs, boxes };
  }
  // The follower a capture marker points at: the one standing on `point`, else (none there) the
  // one on top of the tower whose tile `point` is the centre of.
  function captured(point, f) {
    if (f.followers.some(([x, y]) => x === point[0] && y === point[1])) return point;
    const tower = f.towers.find(([x, y, floors]) => floors.length && x * S + S / 2 === point[0] && -y * S + S / 2 === point[1]);
    return tower ? draw.towerShape(tower[0], tower[1], tower[2].length).topAt : point;
  }
  // A spot for a marker aimed at `target`: the target itself for a free spot, else the nearest of
  // rings of candidates around it that covers no follower, no tower and no marker placed so far.
  function markerSpot(target, onTarget, blocked, placed) {
    const free = ([cx, cy]) => blocked.discs.every(([x, y, r]) => Math.hypot(cx - x, cy - y) >= r + MARK_R + 1)
      && blocked.boxes.every(([x0, y0, x1, y1]) => Math.hypot(cx - Math.min(Math.max(cx, x0), x1),
        cy - Math.min(Math.max(cy, y0), y1)) >= MARK_R + 1)
      && placed.every(([x, y]) => Math.hypot(cx - x, cy - y) >= 2 * MARK_R + 1);
    const candidates = onTarget ? [target] : [];
    for (const d of [17, 24, 31, 38]) {
      for (let k = 0; k < 12; k++) {
        const a = -Math.PI / 4 - (k * Math.PI) / 6;  // from up-right, anticlockwise on screen
        candidates.push([target[0] + d * Math.cos(a), target[1] + d * Math.sin(a)]);
      }
    }
    return candidates.find(free) || candidates[candidates.length - 1];
  }
  // Numbered markers on the board, clickable like the buttons: a spot's on it; a capture's beside
  // the follower it takes, with a line and a ring to it; a tower's beside the tower, with a line.
  function drawMarkers() {
    marksLayer.replaceChildren();
    const blocked = obstacles(state.frame), placed = [];
    state.options.forEach((o, i) => {
      if (!o.point) return;
      const target = o.marker === "follower" ? captured(o.point, state.frame) : o.point;
      const spot = markerSpot(target, o.marker === "spot", blocked, placed);
      placed.push(spot);
      const tower = o.marker === "tower" && blocked.boxes.find(([x0, y0, x1, y1]) =>
        x0 <= target[0] && target[0] <= x1 && y0 <= target[1] && target[1] <= y1);
      const end = tower ? [Math.min(Math.max(spot[0], tower[0]), tower[2]), Math.min(Math.max(spot[1], tower[1]), tower[3])]
        : target;  // a tower's line stops at its drawing, never across it
      const g = draw.el("g", { class: `option-mark mark-${o.marker}`, "data-index": i, "data-x": spot[0].toFixed(2),
        "data-y": spot[1].toFixed(2), "data-target-x": target[0], "data-target-y": target[1] }, marksLayer);
      if (spot !== target) draw.el("line", { x1: end[0], y1: end[1], x2: spot[0], y2: spot[1], class: "mark-line" }, g);
      if (o.marker === "follower") draw.el("circle", { cx: target[0], cy: target[1], r: draw.MEEPLE / 2 + 2, class: "mark-ring" }, g);
      draw.el("circle", { cx: spot[0], cy: spot[1], r: MARK_R, class: "mark-dot" }, g);
      draw.el("text", { x: spot[0], y: spot[1] + 3, "text-anchor": "middle" }, g).textContent = String(i + 1);
      draw.el("title", {}, g).textContent = o.label;
      g.addEventListener("click", () => act(o.action));
      g.addEventListener("mouseenter", () => {  // its button lit, scrolled into view in the list
        highlightChoice(i);
        choiceButton(i).scrollIntoView({ block: "nearest" });
      });
      g.addEventListener("mouseleave", () => highlightChoice(null));
    });
  }
  // While choice i is hovered (its button or its marker): the whole feature it joins or takes,
  // sub-cell by sub-cell with each of its tiles outlined, and its button and marker lit.
  function highlightChoice(i) {
    featureLayer.replaceChildren();
    document.querySelectorAll(".lit").forEach((e) => e.classList.remove("lit"));
    const o = i === null ? null : state.options[i];
    if (!o) return;
    document.querySelectorAll(`[data-index="${i}"]`).forEach((e) => e.classList.add("lit"));
    const C = S / 3;
    for (const [x, y, cells] of o.feature || []) {
      for (const c of cells) draw.el("rect", { x: x * S + (c % 3) * C, y: -y * S + Math.floor(c / 3) * C, width: C, height: C,
        class: "feature-cell" }, featureLayer);
      draw.el("rect", { x: x * S + 1, y: -y * S + 1, width: S - 2, height: S - 2, class: "feature-tile" }, featureLayer);
    }
  }
  function highlightCell(where) {  // a score line's place on the board, or nothing
    const layer = $("score-where");
    layer.replaceChildren();
    if (where) draw.el("rect", { x: where[0] * S, y: -where[1] * S, width: S, height: S, class: "score-cell" }, layer);
  }

  // ------------------------------------------------------------------ the panels
  function showMoves() {  // oldest first, each decision numbered in the game; an undo note unnumbered
    let number = state.decisions - state.log.filter((line) => !line.startsWith(UNDONE)).length;
    const log = $("log");
    log.replaceChildren(...state.log.map((line) => {
      const li = document.createElement("li");
      const undone = line.startsWith(UNDONE);
      li.className = undone ? "undone" : "move";
      li.append(text("span", "n", undone ? "" : `${++number}.`), text("span", "words", line));
      return li;
    }));
    log.scrollTop = log.scrollHeight;
  }
  // The score changes (state.scores_explained: the server's score log in words), newest last and
  // in view; at the end the breakdown of each player's score by category.
  function showScores(explained) {
    const log = $("score-log"), breakdown = $("score-breakdown");
    log.replaceChildren();
    breakdown.replaceChildren();
    if (!explained) return;
    for (const ev of explained.events) {
      const li = document.createElement("li");
      li.className = "score-event" + (ev.final ? " final" : "") + (ev.where ? " located" : "");
      li.dataset.player = String(ev.player);
      li.style.borderLeftColor = colour(ev.player);
      li.textContent = ev.text;
      if (ev.where) {
        li.addEventListener("mouseenter", () => highlightCell(ev.where));
        li.addEventListener("mouseleave", () => highlightCell(null));
      }
      log.appendChild(li);
    }
    if (!explained.events.length) log.appendChild(text("li", "none", "no points scored yet"));
    log.scrollTop = log.scrollHeight;
    if (explained.final) breakdown.appendChild(breakdownTable(explained));
  }
  // Categories down, players across (the aside is narrow); a cell carries data-player and
  // data-category, a total data-player.
  function breakdownTable(explained) {
    const table = document.createElement("table");
    table.appendChild(text("caption", "", "final scores by category"));
    const head = table.createTHead().insertRow();
    head.appendChild(text("th", "", ""));
    for (const row of explained.breakdown) {
      const who = text("th", "who", row.name);
      who.style.color = colour(row.player);
      head.appendChild(who);
    }
    const body = table.createTBody();
    const line = (label, cls, cell) => {
      const tr = body.insertRow();
      tr.className = cls;
      tr.appendChild(text("th", "", label));
      for (const row of explained.breakdown) tr.appendChild(cell(row));
    };
    for (const category of explained.categories) line(category, "", (row) => {
      const td = text("td", "", String(row.by_category[category] || 0));
      td.dataset.player = String(row.player);
      td.dataset.category = category;
      return td;
    });
    line("total", "total", (row) => {
      const td = text("td", "", String(row.total));
      td.dataset.player = String(row.player);
      return td;
    });
    return table;
  }

  function show(next) {
    state = next;
    selected = null;
    const f = state.frame;
    const human = state.waiting === "human";
    applyView();
    draw.drawBoard(state.tiles, f, true);
    drawLastMoves();
    highlightCell(null);
    const status = $("status");
    status.className = human ? "you" : "";
    const who = data.players[state.current];
    status.textContent = state.waiting === "over" ? f.next
      : human ? `Your move (${who.name}): ${state.placements.length ? "click a highlighted spot, rotate, place" : "choose below"}`
      : `${who.name} (${who.agent}) is thinking…`;
    $("players").replaceChildren(...f.players.map((p, seat) => draw.playerCard(p, seat, state.waiting !== "over" && state.current === seat)));
    $("tiles-left").textContent = `tiles left in the pile: ${state.tiles_left}`;
    const choices = $("choices");
    choices.replaceChildren(...state.options.map((o, i) => {
      const b = text("button", "choice", `${i + 1}. ${o.label}`);
      b.dataset.index = String(i);
      b.onclick = () => act(o.action);
      b.onmouseenter = b.onfocus = () => highlightChoice(i);
      b.onmouseleave = b.onblur = () => highlightChoice(null);
      return b;
    }));
    $("undo").disabled = !state.can_undo;
    $("hint").disabled = !human;
    showMoves();
    showScores(state.scores_explained);
    $("message").textContent = !state.saved ? (forced && forced.decision + 1 === state.decisions ? forced.note : "")
      : state.waiting === "over"
      ? `game saved to ${state.saved}; replay it with: carcassonne replay ${state.saved} -o game.html`
      : `game saved to ${state.saved}`;
    document.body.dataset.waiting = state.waiting;
    document.body.dataset.decisions = String(state.decisions);
    drawSpots();
    highlightChoice(null);
    drawMarkers();
    drawHint();
    if (state.waiting === "agent") setTimeout(() => update("POST", "/api/agent"), 250);
    else if (human && !state.placements.length && state.options.length === 1 && $("auto-single").checked) {
      playForced(state.decisions, state.options[0]);
    }
  }
  // A decision with one legal action (a forced pass): said, then played for the human unless the
  // box is unticked; skipped if the game moved on meanwhile (an undo).
  let forced = null;  // the forced choice played last: {decision, note}, said until the next decision
  function playForced(decision, option) {
    forced = { decision, note: `the only choice, played for you: ${option.label}` };
    $("message").textContent = forced.note;
    setTimeout(() => {
      if (state && state.decisions === decision && state.waiting === "human") act(option.action);
    }, 400);
  }

  // ------------------------------------------------------------------ buttons and keys
  $("rotate").onclick = rotate;
  $("confirm").onclick = confirm;
  $("undo").onclick = () => update("POST", "/api/undo");
  $("hint").onclick = async () => {
    const decisions = state.decisions;
    const answer = await call("POST", "/api/hint", { agent: "greedy" });
    if (!answer) return;
    $("message").textContent = `hint (${answer.agent}): ${answer.words}`;
    hint = { decisions, action: answer.action };
    drawHint();
  };
  $("zoom-in").onclick = () => zoomCentre(1 / 1.25);
  $("zoom-out").onclick = () => zoomCentre(1.25);
  $("fit-board").onclick = fitView;
  // A mouse click leaves no button (nor the legend's summary) focused: Enter after it places the
  // tile rather than pressing that button again. One reached with Tab keeps its focus and answers
  // Enter itself.
  document.addEventListener("mousedown", (e) => { if (e.target.closest("button, summary")) e.preventDefault(); });
  const KEYS = {
    r: rotate, R: rotate, Enter: confirm, f: fitView, F: fitView,
    "+": () => zoomCentre(1 / 1.25), "=": () => zoomCentre(1 / 1.25), "-": () => zoomCentre(1.25),
    ArrowLeft: () => pan(-box()[2] / 8, 0), ArrowRight: () => pan(box()[2] / 8, 0),
    ArrowUp: () => pan(0, -box()[3] / 8), ArrowDown: () => pan(0, box()[3] / 8),
  };
  const REPEATS = new Set(["+", "=", "-", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]);
  // One key, one action: Enter or space on a focused button is that button's (its click), never
  // also the page's; a held key repeats only zooming and panning.
  document.addEventListener("keydown", (e) => {
    const action = KEYS[e.key];
    if (!action || e.ctrlKey || e.metaKey || e.altKey || (e.repeat && !REPEATS.has(e.key))) return;
    if (e.target.closest("input, select, textarea") || (e.key === "Enter" && e.target.closest("button, summary"))) return;
    e.preventDefault();
    action();
  });
  update("GET", "/api/state");
})();
