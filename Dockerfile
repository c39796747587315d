# The gateway image: `docker compose up` builds it. The dashboard service joins with its own issue.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY core/package.json core/
COPY gateway/package.json gateway/
COPY tracker/package.json tracker/
COPY adapters/package.json adapters/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:tracker && npm run build:gateway
ENV NODE_ENV=production SVC_PORT=8080
EXPOSE 8080
CMD ["node", "--enable-source-maps", "gateway/dist/main.mjs"]
