export { platformSelfCheckWorkflow } from './platform-self-check.ts';
