import {
  Component,
  Suspense,
  lazy,
  useCallback,
  useRef,
  useState,
  type ComponentType,
  type ReactNode,
} from 'react';
import type { SigninResult } from '../../api/signin';
import { useHydrated } from '../useHydrated';
import { loadSigninMutation } from './loadSigninMutation';
import type { SigninMutationProps } from './SigninMutation';

type Mutate = (password: string) => void;

let loaded: ComponentType<SigninMutationProps> | undefined;
const load = () =>
  loadSigninMutation().then((module) => {
    loaded = module.default;
    return module;
  });
// Once loaded, no lazy wrapper: a new lazy component would suspend again on every login screen.
const signinMutation = () => loaded ?? lazy(load);

class LoadFailure extends Component<
  { onFail: (error: unknown) => void; children: ReactNode },
  { failed: boolean }
> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: unknown) {
    this.props.onFail(error);
  }

  render() {
    return this.state.failed ? null : this.props.children;
  }
}

/**
 * The signin for the login form: `run(password)` calls the TanStack mutation, waiting for its
 * chunk if the visitor was quicker than the network. The chunk is requested as soon as the page
 * is live (after hydration), off the path of the first paint. If it cannot be loaded, the
 * waiting signin fails like any other network failure, and the next submit tries again.
 */
export function useSignin(onResult: (result: SigninResult) => void) {
  const hydrated = useHydrated();
  const [{ attempt, Mutation }, setLoad] = useState(() => ({
    attempt: 0,
    Mutation: signinMutation(),
  }));
  const mutate = useRef<Mutate | null>(null);
  const waiting = useRef<string | null>(null);
  const failed = useRef(false);

  const onReady = useCallback((ready: Mutate) => {
    mutate.current = ready;
    const password = waiting.current;
    waiting.current = null;
    if (password !== null) ready(password);
  }, []);

  const onFail = useCallback(
    (error: unknown) => {
      console.error('Signin failed: its code could not be loaded', error);
      failed.current = true;
      if (waiting.current === null) return;
      waiting.current = null;
      onResult({ kind: 'failed' });
    },
    [onResult],
  );

  const run = (password: string) => {
    if (mutate.current) return mutate.current(password);
    waiting.current = password;
    if (!failed.current) return;
    failed.current = false;
    setLoad((current) => ({ attempt: current.attempt + 1, Mutation: signinMutation() }));
  };

  const element = hydrated ? (
    <LoadFailure key={attempt} onFail={onFail}>
      <Suspense fallback={null}>
        <Mutation onResult={onResult} onReady={onReady} />
      </Suspense>
    </LoadFailure>
  ) : null;

  return { element, run };
}
