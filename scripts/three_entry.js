// The parts of three.js the 3D pages use (sim/views/web/board3d.js), bundled by
// scripts/build_three.sh into sim/views/web/three.min.js as one global, THREE.
export {
  AmbientLight, BufferAttribute, BufferGeometry, CanvasTexture, Color, DirectionalLight,
  DoubleSide, Float32BufferAttribute, Group, HemisphereLight, Line, LineBasicMaterial,
  Mesh, MeshBasicMaterial, MeshLambertMaterial, PerspectiveCamera, PlaneGeometry,
  Quaternion, Raycaster, SRGBColorSpace, Scene, SphereGeometry, Vector2, Vector3,
  WebGLRenderer, REVISION,
} from 'three';
export { OrbitControls } from 'three/addons/controls/OrbitControls.js';
