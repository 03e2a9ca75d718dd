export type {
  Character,
  CharacterSetting,
  PluginLogger,
  AgentPostOptions,
  AgentScheduleOptions,
  ScheduledMessageInfo,
  ControlOptions,
  PluginService,
  PluginServiceClass,
  PluginEventHandler,
  AgentRuntime,
  Component,
  ModelParams,
} from './agent-contract';

/** elizaOS's model type names that {@link AgentRuntime.useModel} answers. */
export const ModelType = {
  TEXT_SMALL: 'TEXT_SMALL',
  TEXT_LARGE: 'TEXT_LARGE',
  TEXT_REASONING_SMALL: 'REASONING_SMALL',
  TEXT_REASONING_LARGE: 'REASONING_LARGE',
  OBJECT_SMALL: 'OBJECT_SMALL',
  OBJECT_LARGE: 'OBJECT_LARGE',
} as const;
