# The service image (API and worker run the same image with another command).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Two malloc arenas instead of eight per core: ~25 MB less peak RSS under load (README, Benchmarks).
ENV MALLOC_ARENA_MAX=2
COPY package.json package-lock.json ./
# The stand-in that package.json's dev dependencies link (scripts/stubs/prisma-streams-local/README.md).
COPY scripts/stubs/ scripts/stubs/
RUN npm ci --no-audit --no-fund
COPY . .
# What `npm start` builds before it runs: the settings UI when the project has that step
# (prestart), then the service bundle in dist/ (scripts/build.ts).
RUN npm run prestart --if-present && npm run build
EXPOSE 3000
# The bundle on plain node with the heap limit `npm start -- api` gives the API (scripts/start.sh;
# test/deploy/heap-limits.test.ts keeps them equal). The worker's command is in docker-compose.yml.
CMD ["node", "--max-old-space-size=384", "dist/main.js", "api"]
