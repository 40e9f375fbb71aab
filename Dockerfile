# One image for the demo stack's three services (gatehouse, mock-idp, mcp-backend); compose.yaml
# picks the command. TypeScript runs through tsx, so there is no build step.
FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json .npmrc ./
COPY redact/package.json redact/
COPY proxy/package.json proxy/
COPY mock-idp/package.json mock-idp/
COPY mock-mcp/package.json mock-mcp/
COPY conformance/package.json conformance/
COPY gwctl/package.json gwctl/
COPY bench/package.json bench/
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY redact redact
COPY proxy proxy
COPY mock-idp mock-idp
COPY mock-mcp mock-mcp
COPY gwctl gwctl
COPY examples examples
USER node
CMD ["node", "proxy/bin/gatehouse.js", "-f", "examples/compose/gatehouse.yaml"]
