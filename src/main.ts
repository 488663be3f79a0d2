import { mount } from 'svelte';
import './ui/theme.css';
import App from './ui/App.svelte';
import { installTestHolds } from './ui/testHolds.ts';

// before the app starts its first worker: a browser test's holds name every worker (src/ui/testHolds.ts)
installTestHolds();
mount(App, { target: document.getElementById('app')! });
