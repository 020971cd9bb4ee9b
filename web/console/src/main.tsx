import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';
import { followLinksInPage } from './router.ts';

const root = document.getElementById('app');
if (root) {
  root.replaceChildren();
  followLinksInPage(document.body);
  render(<App />, root);
}
