// gillab's JupyterLab: the stock JupyterLab 4 shell with the plugins a course reaches for, all
// that run on Debian's jupyter_server 1.23 (docs/lab.md lists what is left out and why).
import { JupyterLab } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';

// Chunks and assets load from the server's static URL, known only at run time.
// eslint-disable-next-line no-undef
__webpack_public_path__ = PageConfig.getOption('fullStaticUrl') + '/';

// The plugin packages (their styles: style.js; the themes: served by jupyterlab_server).
const extensions = [
  import('@jupyterlab/application-extension'),
  import('@jupyterlab/apputils-extension'),
  import('@jupyterlab/cell-toolbar-extension'),
  import('@jupyterlab/celltags-extension'),
  import('@jupyterlab/codemirror-extension'),
  import('@jupyterlab/completer-extension'),
  import('@jupyterlab/console-extension'),
  import('@jupyterlab/csvviewer-extension'),
  import('@jupyterlab/debugger-extension'),
  import('@jupyterlab/docmanager-extension'),
  import('@jupyterlab/documentsearch-extension'),
  import('@jupyterlab/filebrowser-extension'),
  import('@jupyterlab/fileeditor-extension'),
  import('@jupyterlab/help-extension'),
  import('@jupyterlab/htmlviewer-extension'),
  import('@jupyterlab/hub-extension'),
  import('@jupyterlab/imageviewer-extension'),
  import('@jupyterlab/inspector-extension'),
  import('@jupyterlab/launcher-extension'),
  import('@jupyterlab/logconsole-extension'),
  import('@jupyterlab/mainmenu-extension'),
  import('@jupyterlab/markdownviewer-extension'),
  import('@jupyterlab/markedparser-extension'),
  import('@jupyterlab/mathjax-extension'),
  import('@jupyterlab/mermaid-extension'),
  import('@jupyterlab/metadataform-extension'),
  import('@jupyterlab/notebook-extension'),
  import('@jupyterlab/rendermime-extension'),
  import('@jupyterlab/running-extension'),
  import('@jupyterlab/settingeditor-extension'),
  import('@jupyterlab/shortcuts-extension'),
  import('@jupyterlab/statusbar-extension'),
  import('@jupyterlab/terminal-extension'),
  import('@jupyterlab/theme-dark-extension'),
  import('@jupyterlab/theme-light-extension'),
  import('@jupyterlab/toc-extension'),
  import('@jupyterlab/tooltip-extension'),
  import('@jupyterlab/translation-extension'),
  import('@jupyterlab/ui-components-extension'),
  import('@jupyterlab/workspaces-extension'),
  import('./debugger_ready.js'),
  import('./lectures.js')
];

// Renderers of output and file types. A MIME type goes to the last renderer registered for it:
// gillab's result renderer comes after the stock Vega one, which it takes Vega-Lite 5 from.
const mimeExtensions = [
  import('@jupyterlab/javascript-extension'),
  import('@jupyterlab/json-extension'),
  import('@jupyterlab/mermaid-extension/lib/mime.js'),
  import('@jupyterlab/pdf-extension'),
  import('@jupyterlab/vega5-extension'),
  import('./result_renderer.js')
];

// Plugins left out: language servers (jupyter_server 1.23 serves none), the licences page (the
// bundle does not collect third-party licences), and news fetched from the internet (a course
// server stays offline).
const skipped = id =>
  id.includes(':language-server') ||
  id === '@jupyterlab/help-extension:licenses' ||
  id === '@jupyterlab/apputils-extension:announcements';

function asList(exported) {
  return Array.isArray(exported) ? exported : [exported];
}

function pluginsOf(module) {
  return asList(module.default).filter(p => !skipped(p.id));
}

async function main() {
  await import('./style.js');
  const lab = new JupyterLab({
    mimeExtensions: (await Promise.all(mimeExtensions)).flatMap(module => asList(module.default))
  });
  lab.registerPlugins((await Promise.all(extensions)).flatMap(pluginsOf));
  await lab.start();
  await lab.restored;
  // Tests and users can tell the app is ready from the document.
  document.body.dataset.gillabReady = 'true';
}

window.addEventListener('load', () => {
  main().catch(error => console.error('gillab Lab failed to start', error));
});
