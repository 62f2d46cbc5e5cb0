import './styles.css';
import './tandem-app.ts';
import { registerServiceWorker } from './sw-register.ts';

registerServiceWorker();
