import { ChatApp } from './app';
import { buildLayout } from './layout';
import './style.css';
import './chat/tool-card.css';

const layout = buildLayout();
document.body.append(layout.root);
void new ChatApp(layout).start();
