// Activities are built by a factory so the worker (or a test) hands in their dependencies.
export interface HelloActivityDeps {
  greeting?: string;
}

export function createHelloActivities({ greeting = 'Hello' }: HelloActivityDeps = {}) {
  return {
    async greet(name: string): Promise<string> {
      return `${greeting}, ${name}!`;
    },
  };
}

export type HelloActivities = ReturnType<typeof createHelloActivities>;
