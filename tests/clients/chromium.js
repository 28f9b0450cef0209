// Headless Chromium for the browser tests: Debian's chromium through playwright-core, with the
// flags that keep it from reaching the network or sandboxing itself as root.
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'
];

// job: { playwright: path of playwright-core, chromium: the executable }.
function launch(job) {
  const { chromium } = require(job.playwright);
  return chromium.launch({ executablePath: job.chromium, args: CHROMIUM_ARGS });
}

// Console errors and uncaught page errors, collected for the report.
function watchErrors(page) {
  const errors = { consoleErrors: [], pageErrors: [] };
  page.on('console', m => m.type() === 'error' && errors.consoleErrors.push(m.text().slice(0, 500)));
  page.on('pageerror', e => errors.pageErrors.push(String(e).slice(0, 500)));
  return errors;
}

module.exports = { launch, watchErrors };
