import { ActivityList } from "./ActivityList.tsx";
import { Directory } from "./Directory.tsx";

export function App() {
  return (
    <main>
      <h1>Customers</h1>
      <p className="lead">Saved in this browser with attrmap. Open a second tab: every change shows in both.</p>
      <div className="columns">
        <Directory />
        <ActivityList />
      </div>
    </main>
  );
}
