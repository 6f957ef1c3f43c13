// The one 3D view of the board, shared by the offline shot pages (sim/views/viewer.py)
// and the sandbox in the browser (sim/serve/): three.js (sim/views/web/three.min.js,
// the global THREE) draws the board, fences, tractor, piggies and bale from the scene
// data that sim/views/viewer.py's scene() builds; a 2D canvas laid over it carries
// the piggies' names. Lengths are millimetres in the board frame (+z up).
'use strict';

function board3dColour(rgb) {
  return new THREE.Color().setRGB(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255,
                                  THREE.SRGBColorSpace);
}

function board3dGeometry(mesh) {  // flat-shaded triangles from {v, f}
  const indexed = new THREE.BufferGeometry();
  indexed.setAttribute('position', new THREE.Float32BufferAttribute(mesh.v, 3));
  indexed.setIndex(mesh.f);
  const flat = indexed.toNonIndexed();
  flat.computeVertexNormals();
  return flat;
}

function board3dBounds(quad) {  // a flat quad's x0, x1, y0, y1 (mm)
  const v = quad.v;
  return [Math.min(v[0], v[3]), Math.max(v[0], v[3]), Math.min(v[1], v[7]),
          Math.max(v[1], v[7])];
}

// The quaternion of a turn by yaw about z, then pitch about x (radians): (x, y, z, w).
function board3dYawPitch(yaw, pitch) {
  const cy = Math.cos(yaw / 2), sy = Math.sin(yaw / 2), cp = Math.cos(pitch / 2),
        sp = Math.sin(pitch / 2);
  return [cy * sp, sy * sp, sy * cp, cy * cp];
}

class Board3D {
  // container: the element to fill; scene: viewer.py's scene() data.
  constructor(container, scene) {
    this.S = scene;
    this.container = container;
    this.renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    // the canvas takes the container's size and never sets it
    this.renderer.domElement.style.cssText = 'display:block;position:absolute;left:0;top:0';
    container.appendChild(this.renderer.domElement);
    this.overlay = document.createElement('canvas');
    this.overlay.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none';
    container.style.position = 'relative';
    container.style.overflow = 'hidden';
    container.appendChild(this.overlay);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xf4f1ea);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8a7650, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(3000, -5000, 8000);
    this.scene.add(sun);
    this.camera = new THREE.PerspectiveCamera(40, 1, 5, 100000);
    this.camera.up.set(0, 0, 1);
    this.controls = new THREE.OrbitControls(this.camera, this.renderer.domElement);
    this.controls.maxPolarAngle = Math.PI / 2 - 0.03;  // never under the board
    this.names = true;
    this.tags = {};        // name -> true when the name shows as knocked out
    this._buildBoard();
    this.tractor = this._body(scene.tractor);
    this.barrel = this._body(scene.barrel);
    this.barrel.position.set(0, 0, scene.pivot_mm);
    this.bale = this._body(scene.bale);
    this.bale.visible = false;
    this.piggyGeometry = board3dGeometry(scene.piggy);
    this.piggies = {};     // name -> mesh
    this.trail = new THREE.Line(new THREE.BufferGeometry(),
                                new THREE.LineBasicMaterial({color: 0xb0441c}));
    this.trail.frustumCulled = false;
    this.scene.add(this.trail);
    this.setAim(0, 0);
    this.resize();
    new ResizeObserver(() => this.resize()).observe(container);
  }

  _body(mesh, rgb) {
    const body = new THREE.Mesh(board3dGeometry(mesh), new THREE.MeshLambertMaterial(
      {color: board3dColour(rgb || mesh.rgb), flatShading: true}));
    this.scene.add(body);
    return body;
  }

  // The board top as one plane painted with the spaces, pits, trough and their names;
  // the fences (boxes) as meshes.
  _buildBoard() {
    const [x0, x1, y0, y1] = this.S.extent_mm, w = x1 - x0, h = y1 - y0;
    const scale = Math.min(6, 4096 / Math.max(w, h));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * scale); canvas.height = Math.round(h * scale);
    const ctx = canvas.getContext('2d');
    const px = x => (x - x0) * scale, py = y => (y1 - y) * scale;
    const flat = this.S.static.filter(m => m.flat).sort((a, b) => a.v[2] - b.v[2]);
    this.tiles = [];
    for (const m of flat) {
      const [qx0, qx1, qy0, qy1] = board3dBounds(m);
      ctx.fillStyle = `rgb(${m.rgb})`;
      ctx.fillRect(px(qx0), py(qy1), (qx1 - qx0) * scale, (qy1 - qy0) * scale);
      if (m.outline) {
        ctx.strokeStyle = `rgb(${m.outline})`; ctx.lineWidth = Math.max(1, scale * 0.6);
        ctx.strokeRect(px(qx0), py(qy1), (qx1 - qx0) * scale, (qy1 - qy0) * scale);
      }
      if (m.name) this.tiles.push({name: m.name, x0: qx0, x1: qx1, y0: qy0, y1: qy1});
    }
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    for (const m of flat.filter(q => q.name)) {
      const [qx0, qx1, qy0, qy1] = board3dBounds(m);
      const size = Math.min(qx1 - qx0, qy1 - qy0);
      ctx.font = `${Math.round(size * scale * (m.space ? 0.22 : 0.3))}px sans-serif`;
      ctx.fillStyle = m.space ? 'rgba(90,70,40,0.75)' : 'rgba(70,50,30,0.8)';
      // a space's name in its lower part, clear of a piggy standing in the middle
      const ty = m.space ? qy0 + 0.2 * (qy1 - qy0) : (qy0 + qy1) / 2;
      ctx.fillText(m.label || m.name, px((qx0 + qx1) / 2), py(ty));
    }
    const texture = new THREE.CanvasTexture(canvas);
    texture.colorSpace = THREE.SRGBColorSpace;
    texture.anisotropy = 8;
    const top = new THREE.Mesh(new THREE.PlaneGeometry(w, h),
                               new THREE.MeshLambertMaterial({map: texture}));
    top.position.set((x0 + x1) / 2, (y0 + y1) / 2, 0);
    this.boardTop = top;
    this.scene.add(top);
    for (const m of this.S.static.filter(q => !q.flat)) this._body(m);
  }

  resize() {
    const w = this.container.clientWidth || innerWidth, h = this.container.clientHeight || 400;
    this.renderer.setSize(w, h);
    const ratio = window.devicePixelRatio || 1;
    this.overlay.width = w * ratio; this.overlay.height = h * ratio;
    this.overlay.style.width = w + 'px'; this.overlay.style.height = h + 'px';
    this.camera.aspect = w / h;
    // the focal length in sizes of the smaller side, as the scene asks
    const focal = this.S.focal || 1.4, small = Math.min(w, h);
    this.camera.fov = 2 * Math.atan(0.5 * h / (focal * small)) * 180 / Math.PI;
    this.camera.updateProjectionMatrix();
  }

  // cam: {target_mm, dist_mm, az, el} (radians): an orbit round target.
  setCamera(cam) {
    const t = cam.target_mm, ce = Math.cos(cam.el);
    this.controls.target.set(t[0], t[1], t[2]);
    this.camera.position.set(t[0] + cam.dist_mm * ce * Math.cos(cam.az),
                             t[1] + cam.dist_mm * ce * Math.sin(cam.az),
                             t[2] + cam.dist_mm * Math.sin(cam.el));
    this.controls.update();
  }

  // A point of the board frame (mm) on the view: CSS pixels from its top left corner.
  toScreen(p) {
    this.camera.updateMatrixWorld();
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(this.camera);
    return [(v.x + 1) / 2 * this.container.clientWidth,
            (1 - v.y) / 2 * this.container.clientHeight];
  }

  // Each piggy's outline on the view, [x, y, width, height] in CSS pixels: what a name
  // must not cover.
  piggyBoxes() {
    const v = this.S.piggy.v, lo = [0, 1, 2].map(k => Infinity), hi = lo.map(() => -Infinity);
    for (let i = 0; i < v.length; i++) {
      lo[i % 3] = Math.min(lo[i % 3], v[i]); hi[i % 3] = Math.max(hi[i % 3], v[i]);
    }
    const boxes = {};
    for (const [name, mesh] of Object.entries(this.piggies)) {
      mesh.updateMatrixWorld();
      const xs = [], ys = [];
      for (const x of [lo[0], hi[0]]) for (const y of [lo[1], hi[1]])
        for (const z of [lo[2], hi[2]]) {
          const p = new THREE.Vector3(x, y, z).applyMatrix4(mesh.matrixWorld);
          const [sx, sy] = this.toScreen([p.x, p.y, p.z]);
          xs.push(sx); ys.push(sy);
        }
      const left = Math.min(...xs), top = Math.min(...ys);
      boxes[name] = [left, top, Math.max(...xs) - left, Math.max(...ys) - top];
    }
    return boxes;
  }

  setAim(yawDeg, pitchDeg) {
    const yaw = yawDeg * Math.PI / 180, pitch = pitchDeg * Math.PI / 180;
    this.tractor.quaternion.set(...board3dYawPitch(yaw, 0));
    this.barrel.quaternion.set(...board3dYawPitch(yaw, pitch));
  }

  // poses: name -> [position mm, quaternion (x, y, z, w)]; piggies not named go.
  setPiggies(poses) {
    for (const name of Object.keys(this.piggies))
      if (!(name in poses)) { this.scene.remove(this.piggies[name]); delete this.piggies[name]; }
    for (const [name, [p, q]] of Object.entries(poses)) {
      if (!this.piggies[name]) {
        const mesh = new THREE.Mesh(this.piggyGeometry, new THREE.MeshLambertMaterial(
          {color: board3dColour(this.S.piggy_rgb[name.split('-')[0]]), flatShading: true}));
        mesh.userData.piggy = name;
        this.piggies[name] = mesh;
        this.scene.add(mesh);
      }
      this.piggies[name].position.set(p[0], p[1], p[2]);
      this.piggies[name].quaternion.set(q[0], q[1], q[2], q[3]);
    }
  }

  setBale(p, q) {
    this.bale.visible = Boolean(p);
    if (p) { this.bale.position.set(p[0], p[1], p[2]); this.bale.quaternion.set(...q); }
  }

  // The bale's path so far: points (mm), the first count of them drawn.
  setTrail(points, count) {
    if (this.trailPoints !== points) {
      this.trailPoints = points;
      this.trail.geometry.dispose();
      this.trail.geometry = new THREE.BufferGeometry().setAttribute(
        'position', new THREE.Float32BufferAttribute(points.flat(), 3));
    }
    this.trail.geometry.setDrawRange(0, Math.max(0, Math.min(count, points.length)));
  }

  // What is under a mouse event: {piggy}, {space} or null.
  pick(event) {
    const box = this.renderer.domElement.getBoundingClientRect();
    const at = new THREE.Vector2(((event.clientX - box.left) / box.width) * 2 - 1,
                                 -((event.clientY - box.top) / box.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    this.scene.updateMatrixWorld();  // poses set since the last frame drawn count too
    this.camera.updateMatrixWorld();
    ray.setFromCamera(at, this.camera);
    const pig = ray.intersectObjects(Object.values(this.piggies))[0];
    if (pig) return {piggy: pig.object.userData.piggy};
    const top = ray.intersectObject(this.boardTop)[0];
    if (!top) return null;
    const {x, y} = top.point;
    const tile = this.tiles.find(t => t.x0 <= x && x <= t.x1 && t.y0 <= y && y <= t.y1);
    return tile ? {space: tile.name} : null;
  }

  // Where a space or piggy (by name) is on the page now, in CSS pixels; null when
  // there is none of that name.
  onPage(name) {
    let point = null;
    if (this.piggies[name]) {
      point = this.piggies[name].position.clone();
    } else {
      const tile = this.tiles.find(t => t.name === name);
      if (tile) point = new THREE.Vector3((tile.x0 + tile.x1) / 2, (tile.y0 + tile.y1) / 2, 0);
    }
    if (!point) return null;
    this.scene.updateMatrixWorld();  // poses set since the last frame drawn count too
    this.camera.updateMatrixWorld();
    point.project(this.camera);
    const box = this.renderer.domElement.getBoundingClientRect();
    return [box.left + (point.x + 1) / 2 * box.width, box.top + (1 - point.y) / 2 * box.height];
  }

  render() {
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
    this._overlay();
  }

  // The trail again on the overlay, two pixels wide (WebGL draws lines one pixel wide).
  _trailLine(ctx, project) {
    const count = this.trail.geometry.drawRange.count;
    if (!this.trailPoints || !(count > 1)) return;
    const points = this.trailPoints.slice(0, count).map(project).filter(p => p[2] > 1);
    ctx.strokeStyle = 'rgba(200,60,20,0.85)'; ctx.lineWidth = 2; ctx.beginPath();
    points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
  }

  // The trail, then each piggy's name over it; those marked in this.tags in red with a ring. A tag
  // that would overlap one already drawn, or any piggy, goes to the nearest clear place of a fan
  // round its piggy (beside it, then up and to either side), its leader line showing whose it is.
  _overlay() {
    const ratio = window.devicePixelRatio || 1, ctx = this.overlay.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const w = this.overlay.width / ratio, h = this.overlay.height / ratio;
    ctx.clearRect(0, 0, w, h);
    const project = p => {
      const v = new THREE.Vector3(p[0], p[1], p[2]);
      const depth = v.clone().sub(this.camera.position).dot(
        this.camera.getWorldDirection(new THREE.Vector3()));
      v.project(this.camera);
      return [(v.x + 1) / 2 * w, (1 - v.y) / 2 * h, depth];
    };
    this._trailLine(ctx, project);
    if (!this.names) return;
    const placed = this.tagBoxes = [];  // [x, y, width, height] each, CSS pixels
    ctx.font = 'bold 13px sans-serif'; ctx.textBaseline = 'middle';
    const tags = Object.entries(this.piggies).map(([name, mesh]) => {
      const p = mesh.position;
      const [x, y, z] = project([p.x, p.y, p.z]), top = project([p.x, p.y, p.z + 32]);
      return {name, x, y, z, top, out: Boolean(this.tags[name])};
    }).filter(t => t.z > 1).sort((a, b) => a.top[1] - b.top[1]);
    const focal = h / (2 * Math.tan(this.camera.fov * Math.PI / 360));
    const meets = (box, b, gap) => box[0] < b[0] + b[2] + gap && b[0] < box[0] + box[2] + gap &&
                                   box[1] < b[1] + b[3] + gap && b[1] < box[1] + box[3] + gap;
    // clear of the names drawn and of every piggy seen (a crowded corner: never over one)
    const seen = Object.entries(this.piggyBoxes()).filter(([name]) => tags.some(t => t.name === name))
      .map(([, b]) => b);
    const clear = box => !placed.some(b => meets(box, b, 1.5)) && !seen.some(b => meets(box, b, 0));
    for (const t of tags) {
      const text = t.out ? t.name + ' OUT' : t.name, tw = ctx.measureText(text).width + 8;
      const spots = [];
      for (let up = 0; up < 10; up++)
        for (let side = -4; side <= 4; side++) spots.push([side * (tw / 2 + 3), -19 * up]);
      spots.sort((a, b) => Math.hypot(a[0], 1.6 * a[1]) - Math.hypot(b[0], 1.6 * b[1]));
      const at = spots.map(([dx, dy]) => [t.top[0] - tw / 2 + dx, t.top[1] - 18 + dy, tw, 18])
        .find(clear);
      const box = at || [t.top[0] - tw / 2, t.top[1] - 18 - 19 * placed.length, tw, 18];
      placed.push(box);
      const colour = t.out ? '#d00000' : '#222';
      if (t.out) {
        ctx.strokeStyle = colour; ctx.lineWidth = 3; ctx.beginPath();
        ctx.arc(t.x, t.y, Math.max(10, 18 * focal / t.z), 0, 2 * Math.PI); ctx.stroke();
      }
      ctx.strokeStyle = colour; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(t.top[0], t.top[1]); ctx.lineTo(box[0] + box[2] / 2, box[1] + box[3]);
      ctx.stroke();
      ctx.fillStyle = 'rgba(255,255,255,0.9)'; ctx.fillRect(...box);
      ctx.strokeRect(...box); ctx.fillStyle = colour;
      ctx.fillText(text, box[0] + 4, box[1] + 9);
    }
  }
}
