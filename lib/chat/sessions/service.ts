/**
 * The chat service the transports call: sessions and their messages, built
 * from the provider directory (K1's registry; any `ProviderDirectory`), the
 * embedder used for vector retrieval, and the clock.
 */
import type { Embedder } from '../../vector/index.js';
import type { ProviderDirectory } from '../providers/provider.js';
import { ClientToolBroker, type BrokerClock } from '../tools/client-tool-broker.js';
import { AgentService, GoalService, GoalTemplateService, ScheduleService, TaskService } from '../workflow/index.js';
import { ChatStore, Stamps } from './chat-store.js';
import { MessageService } from './message-service.js';
import { SessionService } from './session-service.js';

export interface ChatDeps {
  readonly providers: ProviderDirectory;
  /** The embedder for vector fields (per call: the configuration may change). */
  readonly embedder: () => Embedder;
  /** Milliseconds since the epoch (the engine's clock). */
  readonly now: () => number;
  /** Makes sure the messages collection has a query index on `chat_id` (called once, after the first message is stored). */
  readonly indexMessages?: () => Promise<void>;
  /** Timers of client tool waits (specs inject a fake one). */
  readonly clientToolClock?: BrokerClock;
}

export class ChatService {
  /** The providers sessions, raw completion and the Chat step call (the server's one directory). */
  readonly providers: ProviderDirectory;
  readonly sessions: SessionService;
  readonly messages: MessageService;
  /** Client tool calls in flight, answered through tool-result / ClientToolResult. */
  readonly clientTools: ClientToolBroker;
  /** Goals, goal templates, tasks and agents (lib/chat/workflow). */
  readonly goals: GoalService;
  readonly templates: GoalTemplateService;
  readonly tasks: TaskService;
  readonly agents: AgentService;
  /** Schedules (protocol.md 2.14); the server's Scheduler fires them. */
  readonly schedules: ScheduleService;

  constructor(deps: ChatDeps) {
    const store = new ChatStore(new Stamps(deps.now), deps.indexMessages);
    this.providers = deps.providers;
    this.goals = new GoalService(deps.now);
    this.templates = new GoalTemplateService(deps.now);
    this.tasks = new TaskService(deps.now);
    this.agents = new AgentService(deps.now);
    this.schedules = new ScheduleService(deps.now);
    this.sessions = new SessionService(store, deps.providers, this.agents);
    this.clientTools = new ClientToolBroker(deps.clientToolClock);
    this.messages = new MessageService(store, deps, this.clientTools);
  }
}
