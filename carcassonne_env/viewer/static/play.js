"use strict";
// The play page: draws the server's state (carcassonne_env/play/server.py) with the replay
// viewer's drawing (draw.js) and sends the human's choices. It offers only what the server lists
// as legal (placements, options); the server checks every request again.
(function () {
  const data = JSON.parse(document.getElementById("play-data").textContent);
  const draw = carcassonneDrawer(data);
  const $ = draw.$, S = draw.S;
  const spotsLayer = $("spots");
  let state = null, selected = null, busy = false;

  $("variant").textContent = data.expansions.length ? "with " + data.expansions.join(", ").replaceAll("_", " ") : "base game";

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

  function handSymbol(rotation) { return state.frame.hand.replace(/r0$/, "r" + rotation); }

  function drawSpots() {
    spotsLayer.replaceChildren();
    for (const [x, y, rotations] of state.placements) {
      const isSel = selected && selected.x === x && selected.y === y;
      if (isSel) draw.el("use", { href: "#" + handSymbol(selected.rotations[selected.i]), x: x * S, y: -y * S,
        width: S, height: S, class: "ghost" }, spotsLayer);
      const r = draw.el("rect", { x: x * S + 2, y: -y * S + 2, width: S - 4, height: S - 4,
        class: "spot" + (isSel ? " selected" : ""), "data-x": x, "data-y": y }, spotsLayer);
      draw.el("title", {}, r).textContent = `(${x},${y}): rotations ${rotations.map((q) => q * 90 + "°").join(", ")}`;
      r.addEventListener("click", () => pick(x, y, rotations));
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

  function show(next) {
    state = next;
    selected = null;
    const f = state.frame;
    const human = state.waiting === "human";
    const spots = state.tiles.concat(state.placements);
    draw.fit(spots);
    draw.drawBoard(state.tiles, f, true);
    const status = $("status");
    status.className = human ? "you" : "";
    const who = data.players[state.current];
    status.textContent = state.waiting === "over" ? f.next
      : human ? `Your move (${who.name}): ${state.placements.length ? "click a highlighted spot, rotate, place" : "choose below"}`
      : `${who.name} (${who.agent}) is thinking…`;
    $("players").replaceChildren(...f.players.map((p, seat) => draw.playerCard(p, seat, state.waiting !== "over" && state.current === seat)));
    $("tiles-left").textContent = `tiles left in the pile: ${state.tiles_left}`;
    const choices = $("choices");
    choices.replaceChildren();
    state.options.forEach((o, i) => {
      const b = document.createElement("button");
      b.className = "choice";
      b.dataset.index = String(i);
      b.textContent = `${i + 1}. ${o.label}`;
      b.onclick = () => { if (!busy) update("POST", "/api/act", { action: o.action }); };
      choices.appendChild(b);
    });
    $("undo").disabled = !state.can_undo;
    $("hint").disabled = !human;
    const log = $("log");
    log.replaceChildren(...state.log.slice().reverse().map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }));
    $("message").textContent = !state.saved ? "" : state.waiting === "over"
      ? `game saved to ${state.saved}; replay it with: carcassonne replay ${state.saved} -o game.html`
      : `game saved to ${state.saved}`;
    document.body.dataset.waiting = state.waiting;
    document.body.dataset.decisions = String(state.decisions);
    drawSpots();
    const seen = {};
    state.options.forEach((o, i) => {  // numbered markers on the board, clickable like the buttons
      if (!o.point) return;
      const key = o.point.join(","), k = (seen[key] = (seen[key] || 0) + 1) - 1;
      const [px, py] = [o.point[0] + 11 * k, o.point[1]];
      const g = draw.el("g", { class: "option-mark", "data-index": i }, spotsLayer);
      draw.el("circle", { cx: px, cy: py, r: 6 }, g);
      draw.el("text", { x: px, y: py + 3, "text-anchor": "middle" }, g).textContent = String(i + 1);
      draw.el("title", {}, g).textContent = o.label;
      g.addEventListener("click", () => { if (!busy) update("POST", "/api/act", { action: o.action }); });
    });
    if (state.waiting === "agent") setTimeout(() => update("POST", "/api/agent"), 250);
  }

  $("rotate").onclick = rotate;
  $("confirm").onclick = confirm;
  $("undo").onclick = () => update("POST", "/api/undo");
  $("hint").onclick = async () => {
    const answer = await call("POST", "/api/hint", { agent: "greedy" });
    if (answer) $("message").textContent = `hint (${answer.agent}): ${answer.words}`;
  };
  document.addEventListener("keydown", (e) => {
    if (e.key === "r" || e.key === "R") rotate();
    else if (e.key === "Enter") confirm();
  });
  update("GET", "/api/state");
})();
