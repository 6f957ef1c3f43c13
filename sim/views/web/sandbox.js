// The sandbox in the browser (sim/serve/app.py): the board drawn by Board3D
// (board3d.js), the controls beside it; every change goes to the server, which
// checks it, keeps this tab's sandbox and runs the physics. The server's refusals
// show, one line, above the board.
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const $ = id => document.getElementById(id);
const sandbox = {state: null, view: null, sceneKey: null, shot: null, picked: null};

function say(text) { $('message').textContent = text || ''; }

async function api(path, body) {
  const options = {headers: {'X-Piggy-Token': token}};
  if (body !== undefined) {
    options.method = 'POST';
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const reply = await fetch('/api/' + path, options);
  const data = (reply.headers.get('Content-Type') || '').startsWith('application/json')
    ? await reply.json() : {};
  if (!reply.ok) {
    const error = new Error(data.error || `the server answered ${reply.status}`);
    error.fromServer = true;
    throw error;
  }
  return data;
}

// Run a request; a refusal is shown, not thrown. The busy flag keeps clicks apart.
async function act(path, body, onReply) {
  say('');
  try {
    const reply = await api(path, body);
    if (onReply) await onReply(reply); else await show(reply);
    return reply;
  } catch (error) {
    say(error.fromServer ? error.message : 'the server cannot be reached: ' + error.message);
    return null;
  }
}

function fill(select, names, chosen) {
  select.replaceChildren(...names.map(n => new Option(n, n)));
  if (!names.includes(chosen)) select.append(new Option(chosen, chosen));
  select.value = chosen;
}

async function show(state) {
  sandbox.state = state;
  fill($('board'), state.known.board, state.board);
  fill($('design'), state.known.design, state.design);
  fill($('aimer'), state.known.aimer, state.aimer);
  $('fireAimer').textContent = 'aimed by: ' + state.aimer;
  if (!$('precision').options.length)
    fill($('precision'), state.precisions.map(String), String(state.precisions[1]));
  $('pitch').min = state.pitch_range[0]; $('pitch').max = state.pitch_range[1];
  if (sandbox.sceneKey !== state.scene_key) {
    const scene = await api(state.id + '/scene');
    $('view').replaceChildren();
    sandbox.view = new Board3D($('view'), scene);
    wholeBoard(scene);
    sandbox.view.renderer.domElement.addEventListener('pointerdown', e => {
      sandbox.down = [e.clientX, e.clientY]; });
    sandbox.view.renderer.domElement.addEventListener('click', clicked);
    sandbox.sceneKey = state.scene_key;
  }
  stopReplay();
  sandbox.view.setPiggies(state.poses);
  sandbox.view.setBale(null);
  sandbox.view.setTrail([], 0);
  sandbox.view.tags = {};
  const aim = state.solved || {yaw_deg: +$('yaw').value, pitch_deg: +$('pitch').value};
  sandbox.view.setAim(aim.yaw_deg, aim.pitch_deg);
  $('yaw').value = aim.yaw_deg; $('pitch').value = aim.pitch_deg;
  $('yawText').textContent = (+aim.yaw_deg).toFixed(1);
  $('pitchText').textContent = (+aim.pitch_deg).toFixed(1);
  $('aimText').textContent = state.aim.at
    ? `aimed at ${state.aim.at} (${state.solved ? state.solved.arc + ' arc' : 'no aim'})`
    : 'aimed by hand';
  // a file the tab opened with, edited since: said until the page is reloaded
  say([state.changed, state.aim_error].filter(Boolean).join(' · '));
  $('undo').disabled = !state.undo;
}

// The camera on the whole board from behind the pit: as near as it can be with every
// edge in view (row 0 clear of the timeline below it, room for the far piggies' names
// above), the board in the middle of that room.
function wholeBoard(scene) {
  const [x0, x1, y0, y1] = scene.extent_mm, view = sandbox.view;
  const w = view.container.clientWidth, h = view.container.clientHeight;
  const corners = [x0, x1].flatMap(x => [y0, y1].map(y => [x, y, 0]));
  const [above, below, beside] = [56, 12, 12];  // px: names over the far row; edges
  let dist = Math.max(x1 - x0, y1 - y0), cy = (y0 + y1) / 2;
  const place = () => {
    view.setCamera({target_mm: [(x0 + x1) / 2, cy, 0], dist_mm: dist, az: -Math.PI / 2,
                    el: 1.0});
    const on = corners.map(p => view.toScreen(p)), xs = on.map(p => p[0]), ys = on.map(p => p[1]);
    return {top: Math.min(...ys), bottom: Math.max(...ys), left: Math.min(...xs),
            right: Math.max(...xs)};
  };
  const fits = e => e.top >= above && e.bottom <= h - below && e.left >= beside &&
                    e.right <= w - beside;
  for (let round = 0; round < 4; round++) {
    dist *= 0.5;
    while (!fits(place()) && dist < 1e5) dist *= 1.02;
    const e = place(), perMm = (e.bottom - e.top) / (y1 - y0);
    cy += ((above + h - below) / 2 - (e.top + e.bottom) / 2) / perMm;  // down: look further
  }
  while (!fits(place()) && dist < 1e5) dist *= 1.02;
}

async function clicked(event) {
  const d = sandbox.down;
  if (d && Math.hypot(event.clientX - d[0], event.clientY - d[1]) > 4) return;  // a drag
  const what = sandbox.view.pick(event);
  if (!what) return;
  const mode = document.querySelector('input[name=mode]:checked').value, id = sandbox.state.id;
  if (mode === 'aim') {
    await act(id + '/aim', {at: what.piggy || what.space, arc: $('arc').value});
  } else if (mode === 'place') {
    await act(id + '/edit', what.piggy ? {op: 'remove', piggy: what.piggy}
                                       : {op: 'place', colour: $('colour').value,
                                          space: what.space});
  } else if (what.piggy) {
    sandbox.picked = what.piggy;
    say(''); $('aimText').textContent = `moving ${what.piggy}: click a space`;
  } else if (sandbox.picked) {
    const piggy = sandbox.picked;
    sandbox.picked = null;
    await act(id + '/edit', {op: 'move', piggy, space: what.space});
  }
}

// --- a shot and its replay --------------------------------------------------------
const replay = {data: null, frame: 0, playing: false, clock: 0, last: null, trail: [], upTo: []};

function stopReplay() {
  replay.data = null; replay.playing = false; $('action').disabled = true;
  $('play').disabled = true; $('timeline').disabled = true; $('time').textContent = '';
}

function startReplay(data) {
  replay.data = data; replay.frame = 0; replay.clock = 0; replay.playing = true;
  replay.trail = []; replay.upTo = [];
  for (let k = 0; k < data.bale.p.length; k++) {
    if (data.bale.in_play[k]) replay.trail.push(data.bale.p[k]);
    replay.upTo.push(replay.trail.length);
  }
  $('timeline').max = data.bale.p.length - 1;
  $('action').disabled = false;
  $('play').disabled = false; $('timeline').disabled = false; $('play').textContent = 'Pause';
  sandbox.view.setAim(data.yaw_deg, data.pitch_deg);
}

function showFrame(k) {
  const D = replay.data, N = D.bale.p.length, poses = {};
  for (const [name, track] of Object.entries(D.piggies)) poses[name] = [track.p[k], track.q[k]];
  sandbox.view.setPiggies(poses);
  sandbox.view.setBale(D.bale.in_play[k] ? D.bale.p[k] : null, D.bale.q[k]);
  sandbox.view.setTrail(replay.trail, $('trail').checked ? replay.upTo[k] : 0);
  sandbox.view.tags = {};
  if (k === N - 1) for (const name of D.knocked) sandbox.view.tags[name] = true;
  $('timeline').value = k;
  $('time').textContent = (k * D.dt_s).toFixed(2) + ' s';
}

async function fire() {
  $('fire').disabled = true;
  $('verdict').textContent = 'firing…';
  const reply = await act(sandbox.state.id + '/fire',
                          {seed: $('seed').value.trim() || '0', exact: $('exact').checked},
                          async r => {
    sandbox.shot = r;
    $('verdict').textContent = r.text;
    startReplay(r.replay);
  });
  if (!reply) $('verdict').textContent = '';
  $('fire').disabled = false;
}

function tick(now) {
  if (replay.data) {
    const N = replay.data.bale.p.length;
    if (replay.playing && replay.last !== null) {
      replay.clock += (now - replay.last) / 1000;
      replay.frame = Math.min(N - 1, Math.floor(replay.clock / replay.data.dt_s));
      if (replay.frame === N - 1) { replay.playing = false; $('play').textContent = 'Play'; }
    }
    showFrame(replay.frame);
  }
  replay.last = now;
  if (sandbox.view) {
    sandbox.view.names = $('names').checked;
    sandbox.view.render();
  }
  requestAnimationFrame(tick);
}

// --- how likely? --------------------------------------------------------------------
async function likely() {
  const started = await act(sandbox.state.id + '/likely',
                            {precision: Number($('precision').value),
                             seed: $('seed').value.trim() || '0'}, async () => {});
  if (started) watchEstimate(started);
}

async function watchEstimate(estimate) {
  const bar = $('likelyBar'), text = $('likelyText');
  bar.hidden = false;
  while (true) {
    if (estimate.error) { bar.hidden = true; text.textContent = ''; say(estimate.error); return; }
    bar.value = Math.min(1, (estimate.shots || 0) / estimate.most);
    if (estimate.p !== undefined && estimate.p !== null) {
      const [lo, hi] = estimate.interval;
      text.textContent = `${estimate.label}: P(knocked out) = ` +
        `${estimate.p.toFixed(2)} (95 % interval ${lo.toFixed(2)}–${hi.toFixed(2)}), ` +
        `${estimate.shots} shots${estimate.running ? '…' : ''}`;
    } else if (estimate.reachable === false) {
      text.textContent = `${estimate.space} is out of reach of this design`;
    } else {
      text.textContent = `measuring ${estimate.label}…`;
    }
    if (!estimate.running) { bar.value = 1; return; }
    await new Promise(r => setTimeout(r, 500));
    try { estimate = await api(sandbox.state.id + '/likely'); } catch (e) { say(e.message); return; }
  }
}

// --- saving -----------------------------------------------------------------------
async function save(name) {
  say('');
  const reply = await fetch(`/api/${sandbox.state.id}/save/${name}`,
                            {headers: {'X-Piggy-Token': token}});
  if (!reply.ok) { say((await reply.json()).error); return; }
  download(URL.createObjectURL(await reply.blob()), name);
}

function download(url, name) {
  const link = document.createElement('a');
  link.href = url; link.download = name; link.click();
}

// --- wiring -------------------------------------------------------------------------
for (const kind of ['board', 'design', 'aimer'])
  $(kind).onchange = () => act(sandbox.state.id + '/choose', {[kind]: $(kind).value});
$('upload').onchange = async () => {
  const file = $('upload').files[0];
  if (!file) return;
  await act(sandbox.state.id + '/upload', {kind: $('uploadKind').value, text: await file.text()});
  $('upload').value = '';
};
for (const id of ['yaw', 'pitch']) {
  $(id).oninput = () => {
    $(id + 'Text').textContent = (+$(id).value).toFixed(1);
    sandbox.view.setAim(+$('yaw').value, +$('pitch').value);
  };
  $(id).onchange = () => act(sandbox.state.id + '/aim',
                             {yaw_deg: +$('yaw').value, pitch_deg: +$('pitch').value});
}
$('fire').onclick = fire;
$('home').onclick = () => wholeBoard(sandbox.view.S);
$('action').onclick = () => replay.data && sandbox.view.setCamera(replay.data.camera);
$('undo').onclick = () => act(sandbox.state.id + '/undo', {});
$('reset').onclick = () => act(sandbox.state.id + '/reset', {});
$('likely').onclick = likely;
for (const button of document.querySelectorAll('[data-save]'))
  button.onclick = () => save(button.dataset.save);
$('png').onclick = () => download(sandbox.view.renderer.domElement.toDataURL('image/png'),
                                  'sandbox.png');
$('play').onclick = () => {
  if (!replay.data) return;
  replay.playing = !replay.playing;
  if (replay.playing && replay.frame === replay.data.bale.p.length - 1) {
    replay.frame = 0; replay.clock = 0;
  }
  $('play').textContent = replay.playing ? 'Pause' : 'Play';
};
$('timeline').oninput = () => {
  replay.playing = false; replay.frame = +$('timeline').value;
  replay.clock = replay.frame * replay.data.dt_s; $('play').textContent = 'Play';
};
addEventListener('pagehide', () => {  // a closed tab frees its sandbox on the server
  if (sandbox.state) navigator.sendBeacon(
    `/api/${sandbox.state.id}/close?token=${encodeURIComponent(token)}`);
});
act('new', {}).then(() => requestAnimationFrame(tick));
