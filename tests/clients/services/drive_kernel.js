// Drives one gillab kernel through a Jupyter server with @jupyterlab/services,
// the protocol client JupyterLab itself uses. Usage: node drive_kernel.js JOB_JSON
//   job: {baseUrl, token, kernel, cells: [code...], interruptCell: code | null}
// Prints one JSON line: per cell the reply status and every IOPub message the
// cell caused (type, content, transient display_id), then the interrupt outcome.
const { KernelManager, ServerConnection } = require('@jupyterlab/services');
const WebSocket = require('ws');

const job = JSON.parse(process.argv[2]);

function collect(kernel, code) {
  const messages = [];
  const future = kernel.requestExecute({ code, stop_on_error: false });
  future.onIOPub = msg => {
    const type = msg.header.msg_type;
    if (type === 'status' || type === 'execute_input') return;
    messages.push({ type, content: msg.content });
  };
  return future.done.then(reply => ({ code, status: reply.content.status, reply: reply.content, messages }));
}

async function main() {
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: job.baseUrl,
    wsUrl: job.baseUrl.replace(/^http/, 'ws'),
    token: job.token,
    appendToken: true,
    WebSocket
  });
  const manager = new KernelManager({ serverSettings });
  await manager.ready;
  const kernel = await manager.startNew({ name: job.kernel });
  const report = { kernel: kernel.name, cells: [], interrupt: null };
  try {
    const info = await kernel.info;
    report.implementation = info.implementation;
    for (const code of job.cells) report.cells.push(await collect(kernel, code));
    if (job.interruptCell) {
      const started = Date.now();
      const running = collect(kernel, job.interruptCell);
      await new Promise(resolve => setTimeout(resolve, 1000));
      await kernel.interrupt();
      const stopped = await running;
      const after = await collect(kernel, '1 + 1');
      report.interrupt = {
        seconds: (Date.now() - started) / 1000,
        ename: stopped.reply.ename,
        after: after.messages.filter(m => m.type === 'execute_result').map(m => m.content.data['text/plain'])
      };
    }
  } finally {
    await kernel.shutdown();
    manager.dispose();
  }
  return report;
}

// A report larger than the pipe's buffer is written in parts; exiting before the
// last part is flushed cuts the JSON short, so exit from the write's callback.
main().then(report => process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(0)), error => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
