// gillab's JupyterLab: the stock JupyterLab 4 shell with just the plugins a course needs
// (file browser, notebooks, rendered outputs, menus, status bar, light theme).
import { JupyterLab } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';

// Chunks and assets load from the server's static URL, known only at run time.
// eslint-disable-next-line no-undef
__webpack_public_path__ = PageConfig.getOption('fullStaticUrl') + '/';

// The plugin packages (their styles: style.js; the theme: served by jupyterlab_server).
const extensions = [
  import('@jupyterlab/application-extension'),
  import('@jupyterlab/apputils-extension'),
  import('@jupyterlab/codemirror-extension'),
  import('@jupyterlab/completer-extension'),
  import('@jupyterlab/docmanager-extension'),
  import('@jupyterlab/documentsearch-extension'),
  import('@jupyterlab/filebrowser-extension'),
  import('@jupyterlab/launcher-extension'),
  import('@jupyterlab/mainmenu-extension'),
  import('@jupyterlab/markedparser-extension'),
  import('@jupyterlab/mathjax-extension'),
  import('@jupyterlab/notebook-extension'),
  import('@jupyterlab/rendermime-extension'),
  import('@jupyterlab/running-extension'),
  import('@jupyterlab/shortcuts-extension'),
  import('@jupyterlab/statusbar-extension'),
  import('@jupyterlab/theme-light-extension'),
  import('@jupyterlab/translation-extension'),
  import('@jupyterlab/ui-components-extension')
];

// Plugins left out: language servers (not served by jupyter_server 1.23), and notebook parts
// that need packages this app does not bundle (table of contents, metadata forms).
const skipped = id =>
  id.includes(':language-server') ||
  id === '@jupyterlab/notebook-extension:toc' ||
  id === '@jupyterlab/notebook-extension:update-raw-mimetype' ||
  // Asks to fetch Jupyter news from the internet; a course server stays offline.
  id === '@jupyterlab/apputils-extension:announcements';

function pluginsOf(module) {
  const exported = module.default;
  return (Array.isArray(exported) ? exported : [exported]).filter(p => !skipped(p.id));
}

async function main() {
  await import('./style.js');
  const lab = new JupyterLab();
  lab.registerPlugins((await Promise.all(extensions)).flatMap(pluginsOf));
  await lab.start();
  await lab.restored;
  // Tests and users can tell the app is ready from the document.
  document.body.dataset.gillabReady = 'true';
}

window.addEventListener('load', () => {
  main().catch(error => console.error('gillab Lab failed to start', error));
});
