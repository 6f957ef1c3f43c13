// The offline shot page (sim/views/viewer.py): a shot's frames played on the board
// (sim/views/web/board3d.js) with the bale's trail, a timeline to scrub, the verdicts.
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const N = D.bale.p.length;
function fitWindow() { document.getElementById('view').style.height = (innerHeight - 40) + 'px'; }
addEventListener('resize', fitWindow); fitWindow();
const view = new Board3D(document.getElementById('view'), D.scene);
const slider = document.getElementById('timeline'), label = document.getElementById('time');
const playButton = document.getElementById('play');
slider.max = N - 1;
view.setAim(D.yaw_deg, D.pitch_deg);
view.setCamera(D.camera);
// the trail: the bale's points while in play, and how many of them by each frame
const trail = [], trailUpTo = [];
for (let k = 0; k < N; k++) {
  if (D.bale.in_play[k]) trail.push(D.bale.p[k]);
  trailUpTo.push(trail.length);
}
let frame = 0, playing = true, last = null, clock = 0;
if (location.hash === '#end') {  // page.html#end: open on the shot's outcome
  frame = N - 1; playing = false; clock = frame * D.dt_s; slider.value = frame;
  playButton.textContent = 'Play';
}
function show(k) {
  const poses = {};
  for (const [name, track] of Object.entries(D.piggies)) poses[name] = [track.p[k], track.q[k]];
  view.setPiggies(poses);
  view.setBale(D.bale.in_play[k] ? D.bale.p[k] : null, D.bale.q[k]);
  view.setTrail(trail, document.getElementById('trail').checked ? trailUpTo[k] : 0);
  view.names = document.getElementById('names').checked;
  view.tags = {};
  if (k === N - 1) for (const name of D.knocked) view.tags[name] = true;
  view.render();
  label.textContent = (k * D.dt_s).toFixed(2) + ' s';
  const info = document.getElementById('info');
  info.replaceChildren();
  if (k === N - 1) {
    const head = document.createElement('b');
    head.textContent = 'Knocked out: ' + (D.knocked.join(', ') || 'nobody');
    info.append(head);
    for (const [p, r] of Object.entries(D.verdicts))
      info.append(document.createElement('br'), p + ': ' + r);
  } else {
    info.textContent = 'The bale struck: ' + (D.contacts.join(' \u2192 ') || 'nothing');
  }
}
function tick(now) {
  if (playing && last !== null) {
    clock += (now - last) / 1000 * parseFloat(document.getElementById('speed').value);
    frame = Math.min(N - 1, Math.floor(clock / D.dt_s));
    if (frame === N - 1) { playing = false; playButton.textContent = 'Play'; }
    slider.value = frame;
  }
  last = now; show(frame); requestAnimationFrame(tick);
}
playButton.onclick = () => {
  playing = !playing; if (playing && frame === N - 1) { frame = 0; clock = 0; }
  playButton.textContent = playing ? 'Pause' : 'Play';
};
slider.oninput = () => {
  playing = false; frame = +slider.value; clock = frame * D.dt_s;
  playButton.textContent = 'Play';
};
document.getElementById('home').onclick = () => view.setCamera(D.camera);
requestAnimationFrame(tick);
