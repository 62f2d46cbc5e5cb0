import './styles.css';
import './tandem-app.ts';
