// Debugs a notebook cell in gillab's JupyterLab in headless Chromium, the way a student would:
// switch the notebook's debugger on (opening its panel if Lab did not), click the gutter beside a line to set a breakpoint, run the
// cell, read the call stack where it stopped, continue, and wait for the cell to finish.
// Usage: node debug_notebook.js '<json job>' (see browsers.py): job.path is a notebook whose first
// code cell runs a function in a thread, job.breakLine the line (from 1) to stop on, job.shot a png
// path for the paused window. Prints a JSON report as the last line of stdout; failures exit
// non-zero with the reason on stderr.
const { runInPage } = require('./chromium.js');
const { openNotebook, kernelIdle } = require('./lab_ui.js');

const job = JSON.parse(process.argv[2]);

runInPage(job, 'lab-debugger', async (page, report) => {
  await openNotebook(page, job);

  // The toolbar's bug button turns on once the kernel says it has a debugger.
  await page.waitForFunction(() => {
    const bug = document.querySelector('.jp-NotebookPanel-toolbar .jp-DebuggerBugButton');
    return bug && !bug.disabled && !bug.closest('[disabled]');
  });
  const bug = page.locator('.jp-NotebookPanel-toolbar .jp-DebuggerBugButton').first();
  const switchedOn = () => bug.getAttribute('aria-pressed').then(pressed => pressed === 'true');
  await bug.click();
  // Stock JupyterLab opens the panel once the kernel's debugger has started. If it stays closed,
  // the student opens it from the right side bar, and switches the debugger on again if it fell
  // back to off.
  const callstack = page.locator('.jp-DebuggerSidebar .jp-DebuggerCallstack');
  report.panelOpenedItself = await callstack.waitFor({ timeout: 30000 }).then(() => true, () => false);
  if (!report.panelOpenedItself) {
    await page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="jp-debugger-sidebar"]').click();
    await callstack.waitFor();
    if (!(await switchedOn())) await bug.click();
  }
  await page.waitForFunction(() => document.querySelector(
    '.jp-NotebookPanel-toolbar .jp-DebuggerBugButton[aria-pressed="true"]'));

  // The breakpoint gutter, level with the line.
  const cell = page.locator('.jp-Notebook .jp-CodeCell').first();
  const line = await cell.locator('.cm-line').nth(job.breakLine - 1).boundingBox();
  const gutter = await cell.locator('.cm-gutter.cm-breakpoint-gutter').boundingBox();
  await page.mouse.click(gutter.x + gutter.width / 2, line.y + line.height / 2);
  await page.locator('.jp-DebuggerBreakpoint').first().waitFor();
  report.breakpoints = await page.$$eval('.jp-DebuggerBreakpoint', els => els.map(e => e.textContent.trim()));

  await cell.click();
  await page.keyboard.press('Control+Enter');
  await page.locator('.jp-DebuggerCallstackFrame-name', { hasText: /^work$/ }).waitFor();
  report.callstack = await page.$$eval('.jp-DebuggerCallstackFrame', frames => frames.map(f => ({
    name: f.querySelector('.jp-DebuggerCallstackFrame-name')?.textContent.trim(),
    location: f.querySelector('.jp-DebuggerCallstackFrame-location')?.textContent.trim()
  })));
  // The stopped frame's locals fill the variables panel once the kernel has answered.
  await page.locator('.jp-DebuggerVariables', { hasText: 'total' }).waitFor({ timeout: 30000 }).catch(() => {});
  report.variables = await page.locator('.jp-DebuggerVariables').innerText();
  if (job.shot) await page.screenshot({ path: job.shot });

  // Continue from the call stack's toolbar; the cell then finishes.
  await page.locator('.jp-DebuggerSidebar [title^="Continue"]').first().click();
  await page.locator('.jp-CodeCell .jp-InputPrompt', { hasText: /\[\d+\]/ }).first().waitFor();
  await kernelIdle(page, job);
  report.output = await cell.locator('.jp-OutputArea-output').allInnerTexts();
});
