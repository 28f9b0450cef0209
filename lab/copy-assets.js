// Copies what jupyterlab_server serves beside the bundle: each plugin package's settings
// schemas (build/lab/schemas/<package>/) and the light theme (build/lab/themes/<package>/).
const fs = require('fs');
const path = require('path');

const out = path.resolve(__dirname, '../build/lab');
const packages = Object.keys(require('./package.json').dependencies).filter(name =>
  name.endsWith('-extension')
);

function copyDir(from, to, filter = () => true) {
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(from).filter(filter)) {
    fs.copyFileSync(path.join(from, name), path.join(to, name));
  }
}

fs.rmSync(path.join(out, 'schemas'), { recursive: true, force: true });
fs.rmSync(path.join(out, 'themes'), { recursive: true, force: true });
for (const name of packages) {
  const root = path.dirname(require.resolve(`${name}/package.json`));
  const meta = require(`${name}/package.json`).jupyterlab || {};
  if (meta.schemaDir) {
    const target = path.join(out, 'schemas', name);
    copyDir(path.join(root, meta.schemaDir), target, file => file.endsWith('.json'));
    // jupyterlab_server reads the package's version from here.
    fs.copyFileSync(path.join(root, 'package.json'), path.join(target, 'package.json.orig'));
  }
  if (meta.themePath) {
    // The theme manager loads <themes>/<package>/index.css; the theme's imports sit beside it.
    const target = path.join(out, 'themes', name);
    copyDir(path.join(root, path.dirname(meta.themePath)), target, file => file.endsWith('.css'));
    fs.copyFileSync(path.join(root, meta.themePath), path.join(target, 'index.css'));
  }
}
