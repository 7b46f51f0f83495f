// The part of an n8n instance that sits around its engine, kept as small as it can be: load the
// community package with n8n's own PackageDirectoryLoader, keep one credential, run workflows
// with n8n-core's WorkflowExecute, activate and deactivate a trigger's webhook through its
// webhookMethods in n8n-core's HookContext (checkExists, then create; delete), and serve the
// webhook URL: each request goes to the node's webhook() in n8n-core's WebhookContext with the
// raw body kept (as n8n's own body parser keeps it), and the items it returns start a run of the
// workflow. This mirrors what n8n's `cli` package does (ActiveWorkflowManager, WebhookService,
// CredentialsHelper); everything the nodes themselves touch is n8n's own code.
import { once } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

// n8n loads everything as CommonJS (its packages' ESM builds are not for direct import), and the
// nodes require n8n-workflow: one instance for all.
const require = createRequire(import.meta.url);
const core = require('n8n-core');
const workflowLib = require('n8n-workflow');

const { PackageDirectoryLoader, WorkflowExecute, HookContext, WebhookContext, ExecutionLifecycleHooks } = core;
const { Workflow, ICredentialsHelper, createRunExecutionData } = workflowLib;

export const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Loads n8n-nodes-lightbox the way n8n loads an installed community package. */
export async function loadPackage() {
  const loader = new PackageDirectoryLoader(PACKAGE_DIR);
  await loader.loadAll();
  const nodeTypes = {
    getByName: (type) => loader.getNode(type.split('.').pop()).type,
    getByNameAndVersion: (type) => {
      const loaded = loader.getNode(type.replace(`${loader.packageName}.`, '')).type;
      return loaded;
    },
    getKnownTypes: () => loader.known.nodes,
  };
  return { loader, nodeTypes };
}

/** n8n's CredentialsHelper for one stored credential: generic authentication resolved as n8n does. */
class HostCredentials extends ICredentialsHelper {
  constructor(loader, stored) {
    super();
    this.loader = loader;
    this.stored = stored; // { [type]: { id, name, data } }
  }
  getParentTypes() {
    return [];
  }
  isCredentialUsableByNode() {
    return true;
  }
  async authenticate(credentials, typeName, requestOptions, workflow, node) {
    const type = this.loader.getCredential(typeName).type;
    const auth = type.authenticate;
    if (typeof auth !== 'object' || auth.type !== 'generic') return requestOptions;
    const resolve = (value) =>
      typeof value === 'string' && value.startsWith('=')
        ? String(
            workflow.expression.getSimpleParameterValue(
              node,
              value,
              'internal',
              { $credentials: credentials },
              undefined,
              '',
            ) ?? '',
          )
        : value;
    for (const [outer, values] of Object.entries(auth.properties)) {
      requestOptions[outer] = requestOptions[outer] ?? {};
      for (const [key, value] of Object.entries(values)) requestOptions[outer][resolve(key)] = resolve(value);
    }
    return requestOptions;
  }
  async preAuthentication() {
    return undefined;
  }
  async runPreAuthentication() {
    return undefined;
  }
  async getCredentials() {
    throw new Error('not used');
  }
  async getDecrypted(additionalData, nodeCredentials, type) {
    const stored = this.stored[type];
    if (!stored || stored.id !== nodeCredentials.id) throw new Error(`no ${type} credential ${nodeCredentials.id}`);
    return { ...stored.data };
  }
  async updateCredentials() {}
  async updateCredentialsOauthTokenData() {}
  getCredentialsProperties(type) {
    return this.loader.getCredential(type).type.properties;
  }
}

export function additionalDataFor({ loader, credentials, webhookBaseUrl, workflowId }) {
  return {
    credentialsHelper: new HostCredentials(loader, credentials),
    executeWorkflow: async () => {
      throw new Error('sub-workflows are not used here');
    },
    getRunExecutionData: async () => undefined,
    getRuntimeCredential: async () => undefined,
    currentNodeExecutionIndex: 0,
    restApiUrl: `${webhookBaseUrl.replace(/\/webhook$/, '')}/rest`,
    instanceBaseUrl: webhookBaseUrl.replace(/\/webhook$/, ''),
    formBaseUrl: `${webhookBaseUrl.replace(/\/webhook$/, '')}/form`,
    formWaitingBaseUrl: `${webhookBaseUrl.replace(/\/webhook$/, '')}/form-waiting`,
    formTestBaseUrl: `${webhookBaseUrl.replace(/\/webhook$/, '')}/form-test`,
    webhookBaseUrl,
    webhookWaitingBaseUrl: `${webhookBaseUrl}-waiting`,
    webhookTestBaseUrl: `${webhookBaseUrl}-test`,
    mcpBaseUrl: `${webhookBaseUrl.replace(/\/webhook$/, '')}/mcp`,
    mcpTestBaseUrl: `${webhookBaseUrl.replace(/\/webhook$/, '')}/mcp-test`,
    variables: {},
    logAiEvent: () => {},
    workflowId,
    userId: 'owner',
    startRunnerTask: async () => {
      throw new Error('task runners are not used here');
    },
  };
}

export function makeWorkflow({ id, name, nodes, connections, nodeTypes, active = false }) {
  return new Workflow({
    id,
    name,
    nodes,
    connections,
    active,
    nodeTypes,
    staticData: {},
    settings: { executionOrder: 'v1' },
  });
}

/** Runs a workflow from `startNode` with n8n's WorkflowExecute, as a manual run does. */
export async function runWorkflow(workflow, additionalData, startNode) {
  const data = {
    ...additionalData,
    hooks: new ExecutionLifecycleHooks('manual', `exec-${Date.now()}`, {
      id: workflow.id,
      name: workflow.name,
      nodes: [],
      connections: {},
      active: false,
      settings: {},
    }),
  };
  const execute = new WorkflowExecute(data, 'manual');
  return await execute.run({ workflow, startNode: workflow.getNode(startNode) });
}

function webhookDataFor(workflow, node, additionalData) {
  const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
  const description = nodeType.description.webhooks[0];
  return {
    httpMethod: description.httpMethod,
    node: node.name,
    path: `${node.webhookId}/${description.path}`,
    webhookDescription: description,
    workflowId: workflow.id,
    workflowExecuteAdditionalData: additionalData,
  };
}

/** What n8n's WebhookService.runWebhookMethod does: the node's webhookMethods in a HookContext. */
async function webhookMethod(workflow, node, additionalData, activation, method) {
  const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
  const webhookData = webhookDataFor(workflow, node, additionalData);
  const context = new HookContext(workflow, node, additionalData, 'trigger', activation, webhookData);
  return await nodeType.webhookMethods[webhookData.webhookDescription.name][method].call(context);
}

/** Activation as n8n's ActiveWorkflowManager does it: checkExists, and create if it does not. */
export async function activate(workflow, node, additionalData) {
  if (await webhookMethod(workflow, node, additionalData, 'activate', 'checkExists')) return 'existed';
  await webhookMethod(workflow, node, additionalData, 'activate', 'create');
  return 'created';
}

export async function deactivate(workflow, node, additionalData) {
  return await webhookMethod(workflow, node, additionalData, 'manual', 'delete');
}

/** A minimal Express-style response over Node's, for nodes that answer a webhook themselves. */
function expressResponse(res) {
  const api = {
    statusCode: 200,
    headersSent: false,
    status(code) {
      api.statusCode = code;
      return api;
    },
    json(body) {
      res.writeHead(api.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      api.headersSent = true;
      return api;
    },
    send(body) {
      res.writeHead(api.statusCode, { 'content-type': 'text/plain' }).end(String(body ?? ''));
      api.headersSent = true;
      return api;
    },
    end() {
      if (!api.headersSent) res.writeHead(api.statusCode).end();
      api.headersSent = true;
      return api;
    },
  };
  return api;
}

/**
 * n8n's production webhook server for one active workflow: POST /webhook/<webhookId>/webhook.
 * Keeps every response it gave and every run it started.
 */
export async function startWebhookServer() {
  const routes = new Map();
  const responses = [];
  const runs = [];
  const waiters = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const route = routes.get(`${req.method} ${req.url}`);
        if (!route) {
          res.writeHead(404).end();
          return;
        }
        const rawBody = Buffer.concat(chunks);
        let body = {};
        try {
          body = JSON.parse(rawBody.toString('utf8'));
        } catch {
          // n8n's parser leaves a body it cannot read empty.
        }
        const request = {
          method: req.method,
          url: req.url,
          headers: req.headers,
          params: {},
          query: {},
          body,
          rawBody,
        };
        const response = expressResponse(res);
        const { workflow, node, additionalData } = route;
        const data = { ...additionalData, httpRequest: request, httpResponse: response };
        const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
        const context = new WebhookContext(
          workflow,
          node,
          data,
          'webhook',
          webhookDataFor(workflow, node, data),
          [],
          null,
        );
        try {
          const result = await nodeType.webhook.call(context);
          if (!result.noWebhookResponse)
            response.status(200).json(result.webhookResponse ?? { message: 'Workflow was started' });
          responses.push({ status: response.statusCode, headers: req.headers });
          if (result.workflowData) {
            const runData = createRunExecutionData({
              executionData: { nodeExecutionStack: [{ node, data: { main: result.workflowData }, source: null }] },
            });
            const hooks = new ExecutionLifecycleHooks('webhook', `exec-${runs.length + 1}`, {
              id: workflow.id,
              name: workflow.name,
              nodes: [],
              connections: {},
              active: true,
              settings: {},
            });
            const execute = new WorkflowExecute({ ...additionalData, hooks }, 'webhook', runData);
            runs.push(await execute.processRunExecutionData(workflow));
          }
        } catch (error) {
          if (!response.headersSent) response.status(500).json({ message: String(error?.message ?? error) });
          responses.push({ status: 500, error });
        }
        for (const w of waiters) w();
      })();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${server.address().port}/webhook`;
  return {
    base,
    runs,
    responses,
    register(workflow, node, additionalData) {
      const webhookData = webhookDataFor(workflow, node, additionalData);
      routes.set(`${webhookData.httpMethod} /webhook/${webhookData.path}`, { workflow, node, additionalData });
    },
    unregister: () => routes.clear(),
    async waitForRun(test, ms = 60_000) {
      const end = Date.now() + ms;
      for (;;) {
        const hit = runs.find(test);
        if (hit) return hit;
        if (Date.now() > end) throw new Error(`no matching run within ${ms} ms (${runs.length} runs)`);
        await new Promise((resolve) => {
          const w = () => (waiters.delete(w), resolve());
          waiters.add(w);
          setTimeout(w, 200);
        });
      }
    },
    stop: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export const packageRoot = path.resolve(PACKAGE_DIR);
