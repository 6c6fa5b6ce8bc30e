import { Outlet, useNavigation } from 'react-router';

/** Every page: the page itself and a thin bar while the next page or its code loads. */
export function RootLayout() {
  const navigation = useNavigation();
  return (
    <>
      {navigation.state === 'idle' ? null : (
        <div className="navigation-progress" aria-hidden="true" />
      )}
      <Outlet />
    </>
  );
}
