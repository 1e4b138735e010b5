import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  message: string;
  /** What "Reintentar" does; a reload of the page by default. */
  onRetry?: () => void;
  children: ReactNode;
}

/** A render error, or a chunk that failed to load, shows a message and a retry, never a blank page. */
export class ErrorBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(this.props.message, error, info.componentStack);
  }

  render() {
    if (!this.state.failed) return this.props.children;
    const retry = this.props.onRetry ?? (() => window.location.reload());
    return (
      <main className="screen-message" role="alert">
        <p>{this.props.message}</p>
        <button className="button" type="button" onClick={retry}>
          Reintentar
        </button>
      </main>
    );
  }
}
