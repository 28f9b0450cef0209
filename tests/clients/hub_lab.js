// A student on the hub in headless Chromium: the hub's login form, her server spawned straight
// into gillab's JupyterLab, the hub's items in Lab's File menu (hub-extension), and the Hub
// Control Panel item opening the hub's home page.
// Usage: node hub_lab.js '<json job>' (job.url: the hub's URL; job.user, job.password). Prints a
// JSON report as the last line of stdout; failures exit non-zero with the reason on stderr.
const { runInPage } = require('./chromium.js');

const job = JSON.parse(process.argv[2]);

runInPage(job, 'hub-lab', async (page, report) => {
  await page.goto(`${job.url}hub/login`);
  await page.fill('#username_input', job.user);
  await page.fill('#password_input', job.password);
  await page.click('#login_submit');
  await page.waitForURL(url => url.pathname.startsWith(`/user/${job.user}/lab`));
  await page.waitForSelector('body[data-gillab-ready="true"]', { state: 'attached' });
  report.path = new URL(page.url()).pathname;

  await page.locator('.lm-MenuBar-itemLabel', { hasText: /^File$/ }).click();
  report.fileMenu = await page.$$eval('.lm-Menu-itemLabel', els => els.map(e => e.textContent.trim()));
  if (!report.fileMenu.includes('Hub Control Panel')) return;  // the report says what is missing
  const [panel] = await Promise.all([
    page.waitForEvent('popup'),
    page.locator('.lm-Menu-itemLabel', { hasText: /^Hub Control Panel$/ }).click()
  ]);
  await panel.waitForLoadState();
  report.controlPanel = new URL(panel.url()).pathname;
  report.controlPanelText = (await panel.locator('body').innerText()).slice(0, 2000);
});
