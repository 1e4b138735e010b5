import { Component, type ErrorInfo, type ReactNode } from 'react';
import { setShellAside } from '../../boot/videoShell';

interface Props {
  onRetry: () => void;
  children: ReactNode;
}

export const CHUNK_ERROR_MESSAGE =
  'No se pudo cargar el reproductor de video. Revise su conexión e intente nuevamente.';

/** A failed or timed-out chunk (or a crash inside the screen) gets a message and a retry. */
export class ChunkErrorBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    // index.html's video shell would hide this message; its video waits for the retry.
    setShellAside();
    console.error('The video screen failed to load or render', error, info.componentStack);
  }

  render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="screen-message" role="alert">
        <p>{CHUNK_ERROR_MESSAGE}</p>
        <button className="button" type="button" onClick={this.props.onRetry}>
          Reintentar
        </button>
      </main>
    );
  }
}
