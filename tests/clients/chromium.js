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

// Runs steps(page, report) in a fresh 1400x1000 page and prints the report as the last line of
// stdout; on failure the page's screenshot goes to job.screenshots/<name>-failure.png, the report
// so far into the error, and the process exits 1 with it on stderr.
function runInPage(job, name, steps) {
  const run = async () => {
    const browser = await launch(job);
    const report = {};
    let page;
    try {
      page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      page.setDefaultTimeout(job.timeoutMs);
      Object.assign(report, watchErrors(page));
      await steps(page, report);
      process.stdout.write(JSON.stringify(report) + '\n');
    } catch (error) {
      const shot = require('path').join(job.screenshots, `${name}-failure.png`);
      if (page) await page.screenshot({ path: shot }).catch(() => {});
      error.message += `\nreport so far: ${JSON.stringify(report).slice(0, 3000)}`;
      throw error;
    } finally {
      await browser.close();
    }
  };
  run().catch(error => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  });
}

module.exports = { launch, watchErrors, runInPage };
