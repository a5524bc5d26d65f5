import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createSkillSearchMcpServer } from '../../src/integrations/mcp-server.js';
import type { SearchHit, Skill } from '../../src/types.js';

/**
 * Runs `use` with an MCP client connected in memory to a skill-search server whose search
 * answers `hits` and whose catalog is `skills`; the client is closed afterwards.
 */
export async function withMcpClient<T>(hits: readonly SearchHit[], skills: readonly Skill[], use: (client: Client) => Promise<T>): Promise<T> {
  const server = createSkillSearchMcpServer({
    service: { search: async () => hits, skills: async () => skills, close: async () => undefined },
    k: 3,
    mode: 'hybrid',
    version: 't',
    log: () => undefined,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 't', version: '0' });
  await client.connect(clientSide);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
