// What the Lab tests do on gillab's JupyterLab page, as a student would: open a notebook, pick
// from the menu bar, wait for the kernel.
async function openNotebook(page, job) {
  await page.goto(`${job.url}lab/tree/${encodeURI(job.path)}?token=${job.token}`);
  await page.waitForSelector('body[data-gillab-ready="true"]', { state: 'attached' });
  await page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell');
  await kernelIdle(page, job);
}

// menu(page, 'File', 'New', 'Terminal'): the menu bar item, its submenus, the last one clicked.
async function menu(page, ...labels) {
  await page.locator('.lm-MenuBar-itemLabel', { hasText: new RegExp(`^${labels[0]}$`) }).click();
  for (const label of labels.slice(1, -1)) {
    await page.locator('.lm-Menu-itemLabel', { hasText: new RegExp(`^${label}$`) }).hover();
  }
  await page.locator('.lm-Menu-itemLabel', { hasText: new RegExp(`^${labels[labels.length - 1]}$`) }).click();
}

// The status bar shows the kernel's own state.
function kernelIdle(page, job) {
  return page.locator('.jp-StatusBar-Widget', { hasText: `${job.kernel} | Idle` }).first().waitFor();
}

module.exports = { openNotebook, menu, kernelIdle };
