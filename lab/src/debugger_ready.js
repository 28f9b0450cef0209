// A debugger switch-on that always starts the debugger. @jupyterlab/debugger 4.6.4's session
// replaces its ready promise at every kernel hand-over and resolves only the current one; the
// extension hands over several times while a notebook opens, and a click that lands between two
// waits forever on a promise nobody resolves (no 'initialized' event: the panel stays closed).
// Here a replaced promise resolves with the one that replaced it.
import { Debugger } from '@jupyterlab/debugger';

// The prototype that defines the accessor: Debugger.Session only extends the class that does.
function ownerOf(prototype, name) {
  for (let p = prototype; p; p = Object.getPrototypeOf(p)) {
    if (Object.getOwnPropertyDescriptor(p, name)) return p;
  }
  return null;
}

function chainReplacedReadyPromises(sessionClass) {
  const owner = ownerOf(sessionClass.prototype, 'connection');
  const descriptor = owner && Object.getOwnPropertyDescriptor(owner, 'connection');
  if (!descriptor || !descriptor.set || !descriptor.get) {
    console.warn('gillab: Debugger.Session has no connection accessor; its ready promises are left as they are');
    return;
  }
  Object.defineProperty(owner, 'connection', {
    ...descriptor,
    set(connection) {
      const replaced = this._ready;
      descriptor.set.call(this, connection);
      const current = this._ready;
      if (replaced && current && replaced !== current) {
        void current.promise.then(() => replaced.resolve());
      }
    }
  });
}

export default {
  id: 'gillab:debugger-ready',
  description: 'Keeps a debugger switch-on from waiting on a kernel hand-over that was replaced.',
  autoStart: true,
  activate: () => {
    chainReplacedReadyPromises(Debugger.Session);
  }
};
