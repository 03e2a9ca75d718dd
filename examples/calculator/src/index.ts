/**
 * @module @parley/example-calculator
 * Example Parley plugin for agents that act: a `CALCULATE` action (a tool with `parameters`) and a provider.
 */
export {
  calculateAction,
  calculatorPlugin,
  calculatorPlugin as default,
  forgetCalculationsAction,
  lastCalculationProvider,
} from './calculator-plugin';
export { evaluate, MAX_EXPRESSION } from './evaluate';
