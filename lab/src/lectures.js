// File > Reset Lecture to a Fresh Copy: the student's copy of the open lecture moves to
// lectures/previous/ and a fresh copy of the released lecture takes its place (the server's side:
// lab/gillab_lectures.py). Enabled only on a notebook that is one of her lecture copies.
import { Dialog, ICommandPalette, showDialog } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { IMainMenu } from '@jupyterlab/mainmenu';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';

const COMMAND = 'gillab:reset-lecture';

async function request(path, init = {}) {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'gillab/api/lectures', path);
  const response = await ServerConnection.makeRequest(url, init, settings);
  if (!response.ok) {
    throw new Error(`${url}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

async function resetLecture(panel) {
  const path = panel.context.path;
  const answer = await showDialog({
    title: 'Reset this lecture?',
    body: `A fresh copy of ${path} replaces yours; yours is kept in the folder previous/ beside it.`,
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Reset' })]
  });
  if (!answer.button.accept) {
    return;
  }
  // Her latest edits go with the copy that is kept.
  if (panel.context.model.dirty) {
    await panel.context.save();
  }
  const reply = await request('reset', { method: 'POST', body: JSON.stringify({ path }) });
  await panel.context.revert();
  return reply;
}

export default {
  id: 'gillab:lectures',
  description: "Resets the student's copy of a lecture to a fresh one",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [IMainMenu, ICommandPalette],
  activate: (app, tracker, mainMenu, palette) => {
    let lectures = new Set();
    request('')
      .then(reply => {
        lectures = new Set(reply.lectures.map(lecture => lecture.path));
        app.commands.notifyCommandChanged(COMMAND);
      })
      .catch(() => undefined); // no lectures served: the command stays disabled
    const current = () => tracker.currentWidget;
    app.commands.addCommand(COMMAND, {
      label: 'Reset Lecture to a Fresh Copy',
      isEnabled: () => current() !== null && lectures.has(current().context.path),
      execute: () => resetLecture(current())
    });
    tracker.currentChanged.connect(() => app.commands.notifyCommandChanged(COMMAND));
    if (mainMenu) {
      mainMenu.fileMenu.addGroup([{ command: COMMAND }], 40);
    }
    if (palette) {
      palette.addItem({ command: COMMAND, category: 'Notebook Operations' });
    }
  }
};
