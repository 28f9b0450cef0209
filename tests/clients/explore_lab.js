// Walks through the tools of gillab's JupyterLab that a student reaches for beyond running cells,
// in headless Chromium, the way she would: the launcher, the Shift+Tab tooltip and contextual
// help on a name from the kernel, a .py file in the text editor, a console and a terminal, the
// settings editor with its keyboard shortcuts, the dark theme.
// Usage: node explore_lab.js '<json job>' (see browsers.py): job.path is a notebook whose last
// code cell ends on a name to inspect, job.inspected a word of that name's help, job.script_file
// a .py file beside it. Prints a JSON report as the last line of stdout; failures exit non-zero
// with the reason on stderr.
const path = require('path');
const { runInPage } = require('./chromium.js');
const { openNotebook, menu, kernelIdle } = require('./lab_ui.js');

const job = JSON.parse(process.argv[2]);

runInPage(job, 'lab-tools', async (page, report) => {
  await openNotebook(page, job);
  report.sidebar = await page.$$eval('.lm-TabBar-tab[title]', tabs => tabs.map(t => t.title));
  await menu(page, 'Run', 'Run All Cells');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].every(p => /\[\d+\]/.test(p.textContent)));
  await kernelIdle(page, job);

  // Shift+Tab at the end of the last cell: the kernel's docstring in a tooltip.
  const editor = page.locator('.jp-CodeCell .cm-content').last();
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Shift+Tab');
  report.tooltip = await page.locator('.jp-Tooltip').innerText();
  await page.keyboard.press('Escape');

  // Contextual help follows the cursor in the same cell.
  await menu(page, 'Help', 'Show Contextual Help');
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.locator('.jp-Inspector-content', { hasText: job.inspected }).waitFor();
  report.inspector = await page.locator('.jp-Inspector-content').innerText();

  // The launcher's cards.
  await menu(page, 'File', 'New Launcher');
  await page.waitForSelector('.jp-LauncherCard');
  report.launcher = await page.$$eval('.jp-Launcher-section', sections => sections.map(s => ({
    section: s.querySelector('.jp-Launcher-sectionTitle')?.textContent,
    cards: [...s.querySelectorAll('.jp-LauncherCard')].map(c => c.textContent.trim())
  })));

  // A console on the gillab kernel runs a line.
  await page.locator('.jp-Launcher-section', { hasText: 'Console' })
    .locator('.jp-LauncherCard', { hasText: job.kernel }).click();
  await page.locator('.jp-CodeConsole-banner', { hasText: 'gillab' }).waitFor();
  const prompt = page.locator('.jp-CodeConsole-promptCell .cm-content');
  await prompt.click();
  await page.keyboard.type('6 * 7');
  await page.locator('.jp-CodeConsole-promptCell .cm-content', { hasText: '6 * 7' }).waitFor();
  await page.keyboard.press('Shift+Enter');
  report.console = await page.locator('.jp-CodeConsole-content .jp-OutputArea-output').last().innerText();

  // The .py file opens in the text editor.
  const file = page.locator('.jp-DirListing-item', { hasText: path.basename(job.script_file) });
  // The side tab toggles its panel: open it only when it is closed.
  if (!(await file.isVisible())) await page.locator('.lm-TabBar-tab[title^="File Browser"]').click();
  await file.dblclick();
  await page.locator('.jp-FileEditor .cm-content', { hasText: 'def ' }).waitFor();
  report.editor = await page.locator('.jp-FileEditor .cm-content').innerText();

  // A terminal.
  await menu(page, 'File', 'New', 'Terminal');
  await page.waitForSelector('.jp-Terminal .xterm');
  report.terminal = true;

  // The settings editor, with the keyboard shortcuts among its pages.
  await menu(page, 'Settings', 'Settings Editor');
  await page.waitForSelector('.jp-SettingsPanel .jp-PluginList-entry, .jp-PluginList-entry');
  report.settings = await page.$$eval('.jp-PluginList-entry', entries => entries.map(e => e.textContent.trim()));

  // The dark theme.
  await menu(page, 'Settings', 'Theme', 'JupyterLab Dark');
  await page.waitForSelector('body[data-jp-theme-light="false"]', { state: 'attached' });
  report.theme = await page.evaluate(() => document.body.dataset.jpThemeName);
  await page.screenshot({ path: path.join(job.screenshots, 'lab-dark-theme.png') });
});
