import { QueryClientProvider } from '@tanstack/react-query';
import { useContext, useEffect, useState } from 'react';
import { createQueryClient, useSigninMutation, type SigninResult } from '../../api/signin';
import { InjectedQueryClient } from '../../api/injectedQueryClient';

export interface SigninMutationProps {
  onResult: (result: SigninResult) => void;
  /** Hands the mutation's `mutate` to the login form once it can be called. */
  onReady: (mutate: (password: string) => void) => void;
}

let pageClient: ReturnType<typeof createQueryClient> | undefined;

function Mutation({ onResult, onReady }: SigninMutationProps) {
  const { mutate } = useSigninMutation(onResult);
  useEffect(() => onReady(mutate), [mutate, onReady]);
  return null;
}

/**
 * The signin mutation with its QueryClient, in a chunk of its own: TanStack Query is only needed
 * once the visitor submits, so the login page shows and hydrates without it. Renders nothing.
 */
export default function SigninMutation(props: SigninMutationProps) {
  const injected = useContext(InjectedQueryClient);
  const [client] = useState(() => injected ?? (pageClient ??= createQueryClient()));
  return (
    <QueryClientProvider client={client}>
      <Mutation {...props} />
    </QueryClientProvider>
  );
}
