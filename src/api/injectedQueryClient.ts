import type { QueryClient } from '@tanstack/react-query';
import { createContext } from 'react';

/**
 * A QueryClient handed to the app from outside (tests pass a fresh one each). Only the type of
 * TanStack Query is imported here: the library itself is loaded with the signin, not before.
 */
export const InjectedQueryClient = createContext<QueryClient | undefined>(undefined);
