// tsc (tsconfig.test.json) does not understand .vue files; vue-tsc checks them via tsconfig.web.json.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
