// A student's first visit to gillab's Lab, in headless Chromium: the lectures folder of her own is
// there, she opens a lecture from it, writes in it, then asks for a fresh copy with
// File > Reset Lecture to a Fresh Copy and sees the released lecture again.
// Usage: node lab_lectures.js '<json job>' (see browsers.py): job.folder is the lectures folder,
// job.lecture one lecture's file name, job.marker the text she types. Prints a JSON report as the
// last line of stdout; failures exit non-zero with the reason on stderr.
const { runInPage } = require('./chromium.js');
const { menu, kernelIdle } = require('./lab_ui.js');

const job = JSON.parse(process.argv[2]);

// The text of every cell of the open notebook, as the page shows it.
function cellTexts(page) {
  return page.$$eval('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell', cells =>
    cells.map(c => (c.querySelector('.cm-content') || c).innerText));
}

runInPage(job, 'lab-lectures', async (page, report) => {
  await page.goto(`${job.url}lab?token=${job.token}`);
  await page.waitForSelector('body[data-gillab-ready="true"]', { state: 'attached' });
  // The file browser's side tab toggles it: open it only when it is not the current one.
  const tab = page.locator('.lm-TabBar-tab[title^="File Browser"]');
  if (!/lm-mod-current/.test((await tab.getAttribute('class')) || '')) await tab.click();
  const folder = page.locator('.jp-DirListing-item', { hasText: job.folder });
  await folder.waitFor();
  report.rootListing = await page.$$eval('.jp-DirListing-item .jp-DirListing-itemText', items =>
    items.map(i => i.textContent.trim()));
  await folder.dblclick();
  const lecture = page.locator('.jp-DirListing-item', { hasText: job.lecture });
  await lecture.waitFor();
  report.lecturesListing = await page.$$eval('.jp-DirListing-item .jp-DirListing-itemText', items =>
    items.map(i => i.textContent.trim()));
  await lecture.dblclick();
  await page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell');
  await kernelIdle(page, job);
  report.opened = await cellTexts(page);

  // Her own line at the top of the first code cell (not saved: the reset keeps it anyway).
  const firstCode = page.locator('.jp-CodeCell .cm-content').first();
  await firstCode.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type(`${job.marker}\n`);
  await page.locator('.jp-CodeCell .cm-content', { hasText: job.marker }).first().waitFor();
  report.edited = await cellTexts(page);

  await menu(page, 'File', 'Reset Lecture to a Fresh Copy');
  await page.locator('.jp-Dialog-button', { hasText: 'Reset' }).click();
  await page.locator('.jp-CodeCell .cm-content', { hasText: job.marker }).waitFor({ state: 'detached' });
  report.reset = await cellTexts(page);
  // The listing shows where her copy went.
  await page.locator('.jp-DirListing-item', { hasText: 'previous' }).waitFor();
});
