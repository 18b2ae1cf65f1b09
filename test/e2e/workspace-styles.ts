import { afterAll, beforeAll, describe } from 'vitest';
import { ANSWER_STYLES } from '../simulator/helpers';
import { chromiumAvailable } from './chromium';
import { openWorkspace, waitForMap, type Workspace } from './workspace-harness';

/**
 * One suite per answer style (ANSWER_STYLES: production and variant, or the one
 * SWATH_SIM_SHAPES names), each on its own workspace whose demo service answers in that
 * style, the map drawn; skipped without Chromium. `body` gets the workspace (once started)
 * and the style's name.
 */
export function describeEachStyle(title: string, body: (ws: () => Workspace, shapes: string) => void): void {
  describe.skipIf(!chromiumAvailable()).each(ANSWER_STYLES)(`${title} (%s answers)`, (shapes) => {
    let ws: Workspace | undefined;
    beforeAll(async () => {
      ws = await openWorkspace({ shapes });
      await waitForMap(ws.page);
    });
    afterAll(async () => {
      await ws?.close();
    });
    body(() => ws!, shapes);
  });
}
