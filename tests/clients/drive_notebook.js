// Drives one notebook in a real front end (gillab's JupyterLab or the classic Notebook) in
// headless Chromium, the way a student would: open it, pick the gillab kernel, wait for Idle,
// Run All, wait for Idle, look at what rendered, take screenshots, save.
// Usage: node drive_notebook.js '<json job>' (see conftest.py); prints a JSON report as the
// last line of stdout. Failures exit non-zero with the reason on stderr.
const path = require('path');

const { launch, watchErrors } = require('./chromium.js');

const job = JSON.parse(process.argv[2]);

// Everything the page shows a student, per front end.
const UI = {
  lab: {
    url: () => `${job.url}lab/tree/${encodeURI(job.path)}?token=${job.token}`,
    async ready(page) {
      await page.waitForSelector('body[data-gillab-ready="true"]', { state: 'attached' });
      await page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell');
    },
    async chooseKernel(page) {
      // A notebook with no kernelspec asks which kernel to start; one naming gillab starts it.
      const dialog = page.locator('.jp-Dialog select');
      const named = page.locator('.jp-NotebookPanel-toolbar .jp-KernelName', { hasText: job.kernel });
      await Promise.race([dialog.waitFor(), named.waitFor()]);
      if (await dialog.count()) {
        await dialog.selectOption({ label: job.kernel });
        await page.locator('.jp-Dialog .jp-mod-accept').click();
      }
      await named.waitFor();
    },
    // The status bar shows the kernel's own state (the toolbar's indicator stays busy when
    // an error leaves cells queued).
    idle: page => page.locator('.jp-StatusBar-Widget', { hasText: `${job.kernel} | Idle` }).waitFor(),
    async runAll(page) {
      await page.locator('.lm-MenuBar-itemLabel', { hasText: /^Run$/ }).click();
      await page.locator('.lm-Menu-itemLabel', { hasText: /^Run All Cells$/ }).click();
    },
    codeCells: '.jp-Notebook .jp-CodeCell',
    prompt: '.jp-InputPrompt',
    output: '.jp-OutputArea-output',
    outputArea: '.jp-Cell-outputArea',
    // A magic's chart, drawn live by Vega (canvas or svg) from the bundle's Vega-Lite spec.
    chart: '.vega-embed',
    async chartsDrawn(page) {
      await page.waitForFunction(() =>
        [...document.querySelectorAll('.jp-RenderedVegaCommon5')].every(
          el => el.querySelector('.vega-embed .marks')));
    },
    // The headings the table of contents lists for the open notebook.
    async tableOfContents(page) {
      await page.locator('.lm-TabBar-tab[title^="Table of Contents"]').click();
      await page.waitForSelector('.jp-TableOfContents-tree .jp-tocItem-content');
      return page.$$eval('.jp-TableOfContents-tree .jp-tocItem-content', els => els.map(e => e.title || e.textContent));
    },
    plainText: '.jp-OutputArea-output[data-mime-type="text/plain"]',
    async save(page) {
      await page.locator('.lm-MenuBar-itemLabel', { hasText: /^File$/ }).click();
      await page.locator('.lm-Menu-itemLabel', { hasText: /^Save Notebook$/ }).click();
      await page.waitForSelector('.jp-NotebookPanel:not(.jp-mod-dirty)');
      await page.waitForFunction(() => !document.querySelector('.lm-TabBar-tab.jp-mod-dirty'));
    }
  },
  classic: {
    url: () => `${job.url}notebooks/${encodeURI(job.path)}?token=${job.token}`,
    async ready(page) {
      await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded);
    },
    async chooseKernel(page) {
      // Without a kernelspec the Notebook starts its default kernel; switch from the menu once
      // that kernel has answered, as a student would: switching deletes its session, and the
      // server fails that deletion (500, then "Dead kernel") while the kernel is still starting.
      const name = page.locator('#kernel_indicator .kernel_indicator_name');
      if (!(await name.textContent()).includes(job.kernel)) {
        await page.waitForFunction(() => Jupyter.notebook.kernel &&
          Object.keys(Jupyter.notebook.kernel.info_reply).length > 0);
        await page.locator('#kernellink').click();
        await page.locator('#menu-change-kernel').hover();
        await page.locator('#kernel-submenu-gillab').click();
      }
      await page.locator('#kernel_indicator .kernel_indicator_name', { hasText: job.kernel }).waitFor();
    },
    idle: page => page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon'),
    async runAll(page) {
      await page.locator('#celllink').click();
      await page.locator('#run_all_cells > a').click();
    },
    codeCells: '#notebook .cell.code_cell',
    prompt: '.input_prompt',
    output: '.output_area',
    outputArea: '.output_wrapper',
    chart: 'img[src^="data:image/png"]',
    async chartsDrawn() {},
    plainText: '.output_area .output_text',
    async save(page) {
      await page.locator('#filelink').click();
      await page.locator('#save_checkpoint > a').click();
      await page.waitForFunction(() => !Jupyter.notebook.dirty);
    }
  }
}[job.ui];

// The tooltip Vega shows over a code cell's chart, as {title: value}: the mouse sweeps the plot
// from left to right just above its x axis, where every bar stands, until a tooltip with the
// title `key` appears (a reference rule's tooltip has other titles).
async function hoverChart(page, cellIndex, key) {
  const canvas = page.locator(UI.codeCells).nth(cellIndex).locator('.vega-embed canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const tooltip = page.locator('#vg-tooltip-element.visible');
  const fields = () => tooltip.evaluate(el => Object.fromEntries([...el.querySelectorAll('tr')].map(
    tr => [tr.querySelector('.key')?.textContent ?? '', tr.querySelector('.value')?.textContent ?? ''])));
  let last = null;
  for (let rise = 0.25; rise < 0.6; rise += 0.15) {
    const y = box.y + box.height * (1 - rise);
    for (let x = box.x + 40; x < box.x + box.width; x += 4) {
      await page.mouse.move(x, y);
      if (await tooltip.count()) {
        last = await fields().catch(() => last);
        if (last && key in last) return last;
      }
    }
  }
  return last;
}

async function main() {
  const started = Date.now();
  const timings = {};
  // Each step goes to stderr as it happens, so a hang shows where it stopped.
  const mark = name => {
    timings[name] = (Date.now() - started) / 1000;
    process.stderr.write(`${timings[name].toFixed(1)} s: ${name}\n`);
  };
  const browser = await launch(job);
  let consoleErrors = [];
  let pageErrors = [];
  const stem = `${job.ui}-${path.basename(job.path, '.ipynb')}`;
  let page;
  try {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.setDefaultTimeout(job.timeoutMs);
    ({ consoleErrors, pageErrors } = watchErrors(page));

    await page.goto(UI.url());
    await UI.ready(page);
    mark('opened');
    await UI.chooseKernel(page);
    const toc = job.toc ? await UI.tableOfContents(page) : null;
    await UI.idle(page);
    mark('kernel idle');

    // Every distinct progress text the page ever shows (the line is replaced in place).
    await page.evaluate(output => {
      window.gillabProgress = [];
      const record = () => {
        for (const area of document.querySelectorAll(output)) {
          // The progress display is plain text of one line (a result's caption is HTML).
          const text = area.textContent.trim();
          if (/^gilbench: [^\n]*$/.test(text) && !window.gillabProgress.includes(text)) {
            window.gillabProgress.push(text);
          }
        }
      };
      new MutationObserver(record).observe(document.body, {
        childList: true, subtree: true, characterData: true
      });
    }, UI.plainText);

    await UI.runAll(page);
    // Done when every code cell shows an execution count. Stopped when nothing is queued or
    // running any more (an error ends Run All) for 5 s in a row: the report says which cells ran.
    // textContent, not innerText: Lab does not lay out cells scrolled out of view.
    const finished = await page.waitForFunction(
      ({ cells, prompt }) => {
        const prompts = [...document.querySelectorAll(cells)].map(
          c => c.querySelector(prompt)?.textContent ?? '');
        if (prompts.length > 0 && prompts.every(p => /\[\d+\]/.test(p))) return 'all';
        const stopped = prompts.some(p => /\[\d+\]/.test(p)) && !prompts.some(p => p.includes('*'));
        window.gillabStoppedPolls = stopped ? (window.gillabStoppedPolls || 0) + 1 : 0;
        return window.gillabStoppedPolls >= 10 ? 'stopped' : false;
      },
      { cells: UI.codeCells, prompt: UI.prompt },
      { polling: 500 }
    ).then(handle => handle.jsonValue());
    await UI.idle(page);
    await UI.chartsDrawn(page);
    mark('ran all');

    // What rendered, per code cell (images must have decoded, not merely be in the DOM).
    const cells = await page.evaluate(({ cells, output }) =>
      [...document.querySelectorAll(cells)].map(cell => {
        const outputs = [...cell.querySelectorAll(output)];
        const pngs = [...cell.querySelectorAll('img')].filter(img => img.src.startsWith('data:image/png'));
        return {
          text: outputs.map(o => o.textContent).join('\n').slice(0, 4000),
          tables: cell.querySelectorAll('table').length,
          tableHeaders: [...cell.querySelectorAll('table th')].map(th => th.textContent.trim()),
          pngs: pngs.length,
          pngsDecoded: pngs.filter(img => img.complete && img.naturalWidth > 0).length,
          vegaCharts: cell.querySelectorAll('.vega-embed .marks').length,
          errors: cell.querySelectorAll('.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"], .output_error, .output_stderr').length
        };
      }), { cells: UI.codeCells, output: UI.output });
    const progress = await page.evaluate(() => window.gillabProgress);

    const screenshots = [path.join(job.screenshots, `${stem}.png`)];
    await page.screenshot({ path: screenshots[0], fullPage: true });
    const chart = page.locator(`${UI.codeCells} ${UI.chart}`).last();
    if (await chart.count()) {
      screenshots.push(path.join(job.screenshots, `${stem}-chart.png`));
      await chart.scrollIntoViewIfNeeded();
      await chart.screenshot({ path: screenshots[1] });
    }
    // What a student sees of chosen cells (job.outputShots: {code cell index: png path}), once
    // every cell has run.
    for (const [index, file] of Object.entries(finished === 'all' ? job.outputShots || {} : {})) {
      const area = page.locator(UI.codeCells).nth(Number(index)).locator(UI.outputArea);
      await area.scrollIntoViewIfNeeded();
      await area.screenshot({ path: file });
      screenshots.push(file);
    }
    const tooltip = job.hoverChart === undefined || finished !== 'all' ? null : await hoverChart(page, job.hoverChart, job.hoverKey);
    // The window as a student sees it, scrolled to the first chart (job.pageShot: png path).
    if (job.pageShot) {
      const first = page.locator(`${UI.codeCells} ${UI.chart}`).first();
      if (await first.count()) await first.evaluate(el => el.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: job.pageShot });
      screenshots.push(job.pageShot);
    }

    await UI.save(page);
    mark('saved');
    process.stdout.write(JSON.stringify({
      finished, cells, progress, screenshots, toc, tooltip, consoleErrors, pageErrors, timings
    }) + '\n');
  } catch (error) {
    // What the page looked like when it went wrong, and what it had logged.
    if (page) await page.screenshot({ path: path.join(job.screenshots, `${stem}-failure.png`) }).catch(() => {});
    error.message += `\nconsole errors: ${JSON.stringify(consoleErrors)}\npage errors: ${JSON.stringify(pageErrors)}`;
    throw error;
  } finally {
    await browser.close();
  }
}

main().catch(error => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
