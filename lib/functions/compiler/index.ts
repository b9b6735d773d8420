/** The save-time compiler: definitions to CompiledFunction, with errors naming the path. */
export {
  compileDefinition,
  compileStepList,
  type CompiledFunction,
  type CompileOptions,
  type ParameterSpec,
} from './compile.js';
export { StepMembers, type StepListCompiler } from './member-reader.js';
