"use strict";
// The replay page: draws frame k of the embedded data (carcassonne_env/viewer/snapshots.py) with
// the shared drawing of draw.js.
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const draw = carcassonneDrawer(data);
  const $ = draw.$;
  const frames = data.frames, last = frames.length - 1;
  let current = 0, timer = null;

  $("variant").textContent = data.expansions.length ? "with " + data.expansions.join(", ").replaceAll("_", " ") : "base game";
  $("slider").max = last;
  draw.drawLegend();

  function render(k) {
    current = Math.max(0, Math.min(last, k));
    const f = frames[current];
    const tiles = data.tiles.slice(0, Math.max(1, f.tiles));
    draw.fit(tiles);
    draw.drawBoard(data.tiles.slice(0, f.tiles), f, current > 0);
    $("slider").value = current;
    $("position").textContent = `decision ${current} of ${last} · turn ${f.turn}`;
    $("action").textContent = f.action;
    $("next-decision").textContent = f.next;
    draw.drawHand($("hand"), f.hand);
    $("players").replaceChildren(...f.players.map((p, seat) => draw.playerCard(p, seat, f.actor === seat)));
    const events = $("events");
    events.replaceChildren();
    for (const [seat, pts, words] of f.events) {
      const li = document.createElement("li");
      li.className = "event";
      const points = document.createElement("span");
      points.className = "pts";
      points.style.color = data.players[seat].colour;
      points.textContent = `${pts > 0 ? "+" : ""}${pts}`;
      li.append(points, document.createTextNode(`${data.players[seat].name}: ${words}`));
      events.appendChild(li);
    }
    if (!f.events.length) events.innerHTML = '<li class="none">no points scored yet this turn</li>';
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; return; }
    if (current === last) render(0);
    timer = setInterval(() => { if (current >= last) play(); else render(current + 1); }, 350);
  }
  $("first").onclick = () => render(0);
  $("prev").onclick = () => render(current - 1);
  $("next").onclick = () => render(current + 1);
  $("last").onclick = () => render(last);
  $("play").onclick = play;
  $("slider").oninput = (e) => render(Number(e.target.value));
  document.addEventListener("keydown", (e) => {
    const keys = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last };
    if (e.key in keys) { render(keys[e.key]); e.preventDefault(); }
    else if (e.key === " ") { play(); e.preventDefault(); }
  });
  render(0);
})();
