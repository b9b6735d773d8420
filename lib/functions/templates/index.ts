/** Templates: placeholders and Parameter references, compiled at save and resolved per call. */
export {
  asText, compileTemplate, isConstant, isEnvTemplate, isHostileName, isParameterRef, parsePlaceholderName, resolveTemplate,
  type Template, type TemplateContext, type TemplateScope, type TextPart,
} from './template.js';
