/** Stored sessions as another tab, an old version or a curious visitor may leave them. */
export const EMPRESA = 'Agro Demo S.A.';
export const NOMBRES = 'Visitante Demo';

export const storedSession = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    loggedIn: true,
    username: 'capacitacion',
    timestamp: Math.floor(Date.now() / 1000) - 60,
    empresa: EMPRESA,
    nombres: NOMBRES,
    ...fields,
  });

/** Logged in a minute ago. */
export const freshSession = () => storedSession();
