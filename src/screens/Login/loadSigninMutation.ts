/** The signin chunk (TanStack Query and the mutation); its own module so that tests can fail it. */
export const loadSigninMutation = () => import('./SigninMutation');
