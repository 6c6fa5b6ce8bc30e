/* global document */
/**
 * The reference of the timeline figures: vis-timeline (standalone build) with the same fleet,
 * one group per device, items from the same records, the same initial range as the powerdeck
 * view.
 */
import { DataSet, Timeline } from 'vis-timeline/standalone';
import 'vis-timeline/styles/vis-timeline-graph2d.min.css';
import { exposeBench } from './harness.js';

const HOUR_MS = 3_600_000;
const container = document.getElementById('root');
let timeline;

exposeBench({
  mount(fleet, nowMs) {
    const groups = [];
    const items = [];
    for (const site of fleet.sites)
      for (const device of site.devices) {
        groups.push({ id: device.deviceId, content: device.name });
        for (const record of fleet.recordsByDevice.get(device.deviceId)) {
          items.push({
            id: record.id,
            group: record.deviceId,
            start: Date.parse(record.startTime),
            end: Date.parse(record.endTime),
            content: `${record.powerControl.targetBatteryPowerW / 1000} kW`,
            className: record.status,
          });
        }
      }
    timeline = new Timeline(container, new DataSet(items), new DataSet(groups), {
      start: nowMs - 2 * HOUR_MS,
      end: nowMs + 22 * HOUR_MS,
      stack: false,
      verticalScroll: true,
      maxHeight: 600,
      zoomKey: 'ctrlKey',
      orientation: 'top',
      selectable: false,
    });
  },
  unmount() {
    timeline?.destroy();
    timeline = undefined;
  },
  scrollTarget: () => {
    const rect = container.getBoundingClientRect();
    return { x: Math.round(rect.left + rect.width / 2), y: Math.round(rect.top + 300) };
  },
  panTarget: () => {
    const rect = container.getBoundingClientRect();
    return { x: Math.round(rect.left + rect.width / 2), y: Math.round(rect.top + 300) };
  },
});
